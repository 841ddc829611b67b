/**
 * dist/ for the tests that run the real hook commands (`node bin/forge.js guard …`), which load
 * the bundles, not the TypeScript sources. Vitest's global setup (global-setup.ts) builds it
 * once before any worker starts; ensureBuilt() builds only when no such setup ran (a bench).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./claude-run.js";

let built = false;

export function buildDist(): void {
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "build.mjs")], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`npm run build failed, e2e tests need dist/: ${stderr}`);
  }
}

export function ensureBuilt(): void {
  if (built || process.env.FORGE_TEST_DIST_BUILT === "1") return;
  buildDist();
  built = true;
}
