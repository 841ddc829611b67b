// `npm install -g` of the packed package gives a `forge` that works from any directory: the
// package ships what it needs (its bundles, settings, roles, the demo repository, the pinned
// claude binary) and finds them from its own location, not from the working directory.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/git-repo.js";
import { root } from "./cli-kit.js";

const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("npm install -g of the packed tarball", () => {
  it("installs a forge that runs --help, status and the demo from another directory", async () => {
    const t = tempDir("forge-install-");
    cleanups.push(t.cleanup);
    // Where npm installs globally is readable by everyone (/usr/local/lib/node_modules): the
    // boxes, which run as another user under root, read the installation from there.
    chmodSync(t.dir, 0o755);
    const prefix = join(t.dir, "prefix");
    const elsewhere = join(t.dir, "elsewhere");
    const home = join(t.dir, "home");
    mkdirSync(elsewhere);
    mkdirSync(home);
    // `npm pack` runs the prepare script (the build), as publishing would.
    await run("npm", ["pack", root, "--pack-destination", t.dir, "--silent"], {
      cwd: t.dir,
      timeout: 180_000,
    });
    const tarball = readdirSync(t.dir).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    // From the npm cache when it holds the packages (`npm ci` filled it), else the registry.
    // The native modules (better-sqlite3, tree-sitter) compile here: most of this test's time.
    await run(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        join(t.dir, tarball as string),
      ],
      { cwd: elsewhere, timeout: 480_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const forgeBin = join(prefix, "bin", "forge");
    // Nothing of the checkout on PATH: the installed forge must bring what it runs.
    const env = {
      PATH: `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      FORGE_HOME: join(t.dir, "forge-home"),
    };
    const opts = { cwd: elsewhere, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 };
    const help = await run(forgeBin, ["--help"], opts);
    expect(help.stdout).toMatch(/Usage: forge/);
    for (const cmd of ["run", "demo", "status", "logs", "cancel", "resume"]) {
      expect(help.stdout).toContain(`  ${cmd}`);
    }
    const status = await run(forgeBin, ["status"], opts);
    expect(status.stdout).toBe("no runs in the journal\n");
    const demo = await run(forgeBin, ["demo", "--clean"], opts);
    expect(demo.stdout.split("\n")[0]).toMatch(/SCRIPTED MODEL/);
    expect(demo.stdout).toMatch(/run [0-9a-f]{32}: PASSED/);
    expect(demo.stdout).toContain("| 4 | security | PASS |");
  }, 900_000);

  it("npm install -g of a checkout links it: forge runs from another directory", async () => {
    const t = tempDir("forge-link-");
    cleanups.push(t.cleanup);
    const prefix = join(t.dir, "prefix");
    const elsewhere = join(t.dir, "elsewhere");
    mkdirSync(elsewhere);
    await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", root], {
      cwd: elsewhere,
      timeout: 120_000,
    });
    const env = {
      PATH: `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: t.dir,
      FORGE_HOME: join(t.dir, "forge-home"),
    };
    const opts = { cwd: elsewhere, env, timeout: 60_000 };
    expect((await run("forge", ["--help"], opts)).stdout).toMatch(/Usage: forge/);
    expect((await run("forge", ["status"], opts)).stdout).toBe("no runs in the journal\n");
  }, 180_000);
});
