// The layering rules (.dependency-cruiser.cjs, run by `npm run lint:deps` in `npm test`) catch
// what they are for: a small tree with one deliberately wrong import of each kind is refused,
// each by its rule, and the same tree with the imports put right passes.
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../harness/claude-run.js";
import { tempDir } from "../helpers/git-repo.js";

const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function cruise(files: Record<string, string>) {
  const t = tempDir("forge-layering-");
  cleanups.push(t.cleanup);
  writeFileSync(
    join(t.dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext" } }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(t.dir, path)), { recursive: true });
    writeFileSync(join(t.dir, path), text);
  }
  const bin = join(REPO_ROOT, "node_modules", ".bin", "depcruise");
  const config = join(REPO_ROOT, ".dependency-cruiser.cjs");
  const out = await run(bin, ["src", "--config", config, "--output-type", "json"], {
    cwd: t.dir,
  }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
  const result = JSON.parse(out.stdout) as {
    summary: { violations: Array<{ from: string; to: string; rule: { name: string } }> };
  };
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
}

const LEAVES = {
  "src/app/reply.ts": "export const reply = 1;\n",
  "src/cli/main.ts": "export const main = 1;\n",
  "src/runner/index.ts": 'export { inner } from "./inner.js";\n',
  "src/runner/inner.ts": "export const inner = 1;\n",
  "src/providers/claude.ts": "export const claude = 1;\n",
  "src/chain/ports.ts": "export const port = 1;\n",
};

describe("the layering check", () => {
  it("refuses a wrong import of each kind, by its rule", async () => {
    const found = await cruise({
      ...LEAVES,
      "src/chain/engine.ts": 'import { reply } from "../app/reply.js";\nexport const e = reply;\n',
      "src/store/journal.ts": 'import { main } from "../cli/main.js";\nexport const j = main;\n',
      "src/app/run.ts": 'import { inner } from "../runner/inner.js";\nexport const r = inner;\n',
      "src/boxes/prove.ts":
        'import { claude } from "../providers/claude.js";\nexport const p = claude;\n',
    });
    expect(found).toEqual(
      [
        "domain-imports-no-adapter: src/chain/engine.ts → src/app/reply.ts",
        "adapters-import-no-cli: src/store/journal.ts → src/cli/main.ts",
        "app-reaches-runner-through-its-index: src/app/run.ts → src/runner/inner.ts",
        "boxes-pick-no-provider: src/boxes/prove.ts → src/providers/claude.ts",
      ].sort(),
    );
  }, 60_000);

  it("passes the same tree with the imports put right", async () => {
    const found = await cruise({
      ...LEAVES,
      "src/app/engine-user.ts":
        'import { port } from "../chain/ports.js";\nexport const e = port;\n',
      "src/cli/run.ts": 'import { reply } from "../app/reply.js";\nexport const j = reply;\n',
      "src/app/run.ts": 'import { inner } from "../runner/index.js";\nexport const r = inner;\n',
      "src/runner/prove.ts":
        'import { claude } from "../providers/claude.js";\nexport const p = claude;\n',
    });
    expect(found).toEqual([]);
  }, 60_000);
});
