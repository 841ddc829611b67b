// `npm install -g` of the packed package gives a `forge` that works from any directory: the
// package ships what it needs (its bundles, settings, roles, the demo repository, the pinned
// claude binary) and finds them from its own location, not from the working directory.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
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

/**
 * A binary mirror for better-sqlite3's prebuilt module, as teams behind a firewall run one
 * (prebuild-install reads `npm_config_better_sqlite3_binary_host`): it serves the module this
 * checkout's `npm ci` built for this machine. A user's install downloads that prebuild from
 * GitHub, which this machine cannot reach; without the mirror the install compiles SQLite from
 * source, minutes of CPU that measure the compiler, not the package. When the checkout has no
 * built module the install still compiles.
 */
async function prebuildMirror(
  dir: string,
): Promise<{ url: string; hits: string[]; server: Server }> {
  const release = join(root, "node_modules", "better-sqlite3", "build", "Release");
  const hits: string[] = [];
  let tarball: Buffer | undefined;
  if (existsSync(join(release, "better_sqlite3.node"))) {
    const file = join(dir, "prebuild.tar.gz");
    const staged = join(dir, "prebuild");
    mkdirSync(join(staged, "build", "Release"), { recursive: true });
    await run("cp", [join(release, "better_sqlite3.node"), join(staged, "build", "Release")]);
    await run("tar", ["-czf", file, "-C", staged, "build"]);
    tarball = readFileSync(file);
  }
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if (tarball && req.url?.endsWith(`-node-v${process.versions.modules}-linux-x64.tar.gz`)) {
      res.writeHead(200, { "content-type": "application/gzip" }).end(tarball);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, hits, server };
}

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
    // From the npm cache when it holds the packages (`npm ci` filled it), else the registry;
    // better-sqlite3's prebuilt module from a loopback mirror (above). tree-sitter compiles.
    const mirror = await prebuildMirror(t.dir);
    cleanups.push(() => mirror.server.close());
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
      {
        cwd: elsewhere,
        timeout: 480_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, npm_config_better_sqlite3_binary_host: mirror.url },
      },
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
