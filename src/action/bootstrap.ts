// action/dist/index.js — what `runs.main` starts. The Actions runner does not install a
// JavaScript action's dependencies, and forgechain's cannot be bundled into one file (SQLite's
// native module, tree-sitter's wasm, the guard bundles, the claude CLI). So this, with node's
// own modules only, makes sure the action's checkout is installed and built (`npm ci`, whose
// prepare step builds dist/), then runs dist/action.js with the same environment and exits with
// its code. Committed; `npm test` checks it is what the build makes.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const action = join(root, "dist", "action.js");

if (!existsSync(action) || !existsSync(join(root, "node_modules"))) {
  process.stdout.write("::group::forgechain: installing its dependencies (npm ci)\n");
  const installed = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  process.stdout.write("::endgroup::\n");
  if (installed.status !== 0 || !existsSync(action)) {
    process.stdout.write(
      `::error::forgechain: npm ci in ${root} failed (exit ${installed.status}); the runner must reach the npm registry\n`,
    );
    process.exit(1);
  }
}
const ran = spawnSync(process.execPath, [action], { stdio: "inherit", env: process.env });
process.exit(ran.status ?? 1);
