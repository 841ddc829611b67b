// src/action/bootstrap.ts
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
var root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
var action = join(root, "dist", "action.js");
if (!existsSync(action) || !existsSync(join(root, "node_modules"))) {
  process.stdout.write("::group::forgechain: installing its dependencies (npm ci)\n");
  const installed = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"]
  });
  process.stdout.write("::endgroup::\n");
  if (installed.status !== 0 || !existsSync(action)) {
    process.stdout.write(
      `::error::forgechain: npm ci in ${root} failed (exit ${installed.status}); the runner must reach the npm registry
`
    );
    process.exit(1);
  }
}
var ran = spawnSync(process.execPath, [action], { stdio: "inherit", env: process.env });
process.exit(ran.status ?? 1);
