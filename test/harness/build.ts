/**
 * Builds dist/ once per test process: the e2e tests run the real hook commands
 * (`node bin/forge.js guard …`), which load the bundles, not the TypeScript sources.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./claude-run.js";

let built = false;

export function ensureBuilt(): void {
  if (built) return;
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "build.mjs")], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`npm run build failed, e2e tests need dist/: ${stderr}`);
  }
  built = true;
}
