// Real bwrap: every rule of the box is tested by doing the forbidden thing inside it.
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { DEFAULT_HOST_MASKS } from "../../src/boxes/bwrap.js";
import { createBox } from "../../src/boxes/create-box.js";
import type { BoxOptions } from "../../src/boxes/types.js";

let base: string;
let workspace: string;
let home: string;
const PATH = "/usr/local/bin:/usr/bin:/bin";

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "forge-bwrap-"));
  workspace = join(base, "ws");
  home = join(base, "home");
  mkdirSync(workspace);
  mkdirSync(home);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function box(extra: Partial<BoxOptions> = {}) {
  return createBox("bwrap", { workspace, home, allowNetwork: false, ...extra });
}
function sh(script: string, extra: Partial<BoxOptions> = {}, env: Record<string, string> = {}) {
  return execInBox(box(extra), {
    command: "/bin/sh",
    args: ["-c", script],
    cwd: workspace,
    env: { PATH, HOME: home, ...env },
  });
}

describe("bwrap box (R7.1)", () => {
  it("the root is read-only, also for root inside the box (capabilities dropped: no remount)", async () => {
    const marker = `/usr/forge-box-${process.pid}`;
    const r = await sh(
      `touch ${marker}; echo touch=$?; mount -o remount,rw / 2>/dev/null; echo mount=$?; touch ${marker}; echo again=$?`,
    );
    expect(r.stdout).toMatch(/touch=1/);
    expect(r.stdout).not.toMatch(/mount=0/);
    expect(r.stdout).toMatch(/again=1/);
    expect(existsSync(marker)).toBe(false);
  });

  it("the workspace and HOME are writable and the writes reach the host", async () => {
    const r = await sh('echo w > in-ws.txt && echo h > "$HOME/in-home.txt"');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(workspace, "in-ws.txt"), "utf8")).toBe("w\n");
    expect(readFileSync(join(home, "in-home.txt"), "utf8")).toBe("h\n");
  });

  it("the workspace's .git/config is read-only and .git cannot be moved away; the rest of .git stays writable", async () => {
    execFileSync("git", ["init", "-q", workspace]);
    const config = readFileSync(join(workspace, ".git", "config"), "utf8");
    const r = await sh(
      [
        "echo '[core]' >> .git/config; echo append=$?",
        "git config core.fsmonitor 'touch /x' 2>/dev/null; echo gitconfig=$?",
        "rm -f .git/config 2>/dev/null; echo rm=$?",
        "mv .git .git-moved 2>/dev/null; echo mv=$?",
        "echo ref > .git/forge-probe; echo other=$?",
      ].join("; "),
    );
    expect(r.stdout).toMatch(/append=[1-9]/);
    expect(r.stdout).toMatch(/gitconfig=[1-9]/);
    expect(r.stdout).toMatch(/rm=[1-9]/);
    expect(r.stdout).toMatch(/mv=[1-9]/);
    expect(r.stdout).toMatch(/other=0/);
    // Not even a profile that lists .git as a write subpath undoes it.
    const again = await sh("echo '[core]' >> .git/config; echo append=$?", {
      writeSubpaths: [".git"],
    });
    expect(again.stdout).toMatch(/append=[1-9]/);
    expect(readFileSync(join(workspace, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(join(workspace, ".git-moved"))).toBe(false);
  });

  it("the host's /tmp is not visible, and a file outside workspace/HOME never reaches the host", async () => {
    const outside = join(tmpdir(), `forge-outside-${process.pid}`);
    writeFileSync(outside, "host secret");
    try {
      const sibling = join(base, "sibling.txt");
      const r = await sh(
        `cat ${outside}; echo cat=$?; echo x > ${sibling}; echo x > /var/lib/forge-x; echo var=$?`,
      );
      expect(r.stdout).toMatch(/cat=1/);
      expect(r.stdout).not.toMatch(/host secret/);
      expect(r.stdout).toMatch(/var=[12]/);
      expect(existsSync(sibling)).toBe(false);
      expect(existsSync("/var/lib/forge-x")).toBe(false);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it("host homes and /run are masked (no gate.key, no host sockets)", async () => {
    const runDir = `/run/forge-box-test-${process.pid}`;
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, "gate.key"), "k");
    try {
      expect(DEFAULT_HOST_MASKS).toEqual(expect.arrayContaining(["/home", "/root", "/run"]));
      const r = await sh(`ls ${runDir}; echo ls=$?; ls -A /root | wc -l`);
      expect(r.stdout).toMatch(/ls=[12]/);
      expect(r.stdout.trim().split("\n").at(-1)).toBe("0");
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  });

  it("the environment is exactly the one given: no host GITHUB_TOKEN, even if the spawn merged process.env", async () => {
    const fake = `ghp_${"A".repeat(36)}`;
    process.env.GITHUB_TOKEN = fake;
    try {
      const b = box();
      const w = b.wrap({
        command: "/usr/bin/env",
        args: [],
        cwd: workspace,
        env: { PATH, HOME: home, FORGE_X: "1" },
      });
      // A careless caller merging the parent environment:
      const out = await new Promise<string>((resolve) => {
        const c = spawn(w.command, w.args, {
          env: { ...process.env, ...w.env },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let s = "";
        c.stdout.on("data", (d: Buffer) => (s += d));
        c.on("close", () => resolve(s));
      });
      const names = out
        .trim()
        .split("\n")
        .map((l) => l.split("=")[0])
        .sort();
      // bwrap itself sets PWD to the --chdir directory.
      expect(names).toEqual(["FORGE_X", "HOME", "PATH", "PWD"]);
      expect(out).not.toContain(fake);
    } finally {
      delete process.env.GITHUB_TOKEN;
    }
  });

  it("has its own PID namespace: pid 1 is bwrap's, few processes are visible", async () => {
    const r = await sh("tr '\\0' ' ' < /proc/1/cmdline; echo; ls /proc | grep -c '^[0-9]'");
    // The last line is the count; bwrap's argv before it spans lines (the box's passwd text).
    const lines = r.stdout.trim().split("\n");
    const count = lines.at(-1);
    const cmdline = lines.slice(0, -1).join("\n");
    expect(cmdline).toMatch(/bwrap/);
    expect(Number(count)).toBeLessThan(8);
    const hostCount = readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length;
    expect(hostCount).toBeGreaterThan(Number(count));
  });

  describe("network", () => {
    let server: Server;
    let port: number;
    beforeEach(async () => {
      server = createServer((s) => s.end("hello from the host\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = (extra: Partial<BoxOptions>) =>
      execInBox(box(extra), {
        command: process.execPath,
        args: [
          "-e",
          `require('net').connect(${port},'127.0.0.1').on('data',d=>{process.stdout.write(d);process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(1)})`,
        ],
        cwd: workspace,
        env: { PATH, HOME: home },
      });

    it("none when not allowed: a loopback server of the parent is unreachable", async () => {
      const r = await connect({ allowNetwork: false });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/ECONNREFUSED|ENETUNREACH/);
      expect(box().describe().network).toBe("none");
    });

    it("host when allowed (and the report says so)", async () => {
      const r = await connect({ allowNetwork: true });
      expect(r.stdout).toBe("hello from the host\n");
      const d = box({ allowNetwork: true }).describe();
      expect(d.network).toBe("host");
      expect(d.notes.join(" ")).toMatch(/shares the host network/);
    });

    it("proxy mode: no network, only the socket bound in", () => {
      const sock = join(base, "egress.sock");
      writeFileSync(sock, "");
      const b = box({ network: { mode: "proxy", proxySocket: sock } });
      const args = b.wrap({ command: "/bin/true", args: [], cwd: workspace, env: {} }).args;
      expect(args).toContain("--unshare-net");
      expect(args.join(" ")).toContain(`--bind ${sock} /run/forge/egress.sock`);
      expect(b.describe().network).toBe("proxy");
      expect(b.describe().notes.join(" ")).toMatch(/only way out is forgechain's egress proxy/);
    });
  });

  it("dies with its parent: SIGKILL the parent, the boxed child goes too", async () => {
    const marker = `${4000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const w = box().wrap({ command: "/bin/sleep", args: [marker], cwd: workspace, env: { PATH } });
    const parentJs = `const c=require('child_process').spawn(${JSON.stringify(w.command)},${JSON.stringify(w.args)},{stdio:'ignore'});console.log(c.pid);setInterval(()=>{},1000)`;
    const parent = spawn(process.execPath, ["-e", parentJs], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => parent.stdout.once("data", () => resolve()));
    await waitFor(() => sleepers(marker).length > 0);
    parent.kill("SIGKILL");
    await waitFor(() => sleepers(marker).length === 0);
    expect(sleepers(marker)).toEqual([]);
  });

  it("deny_subpaths are hidden: a directory is empty and read-only, a file reads nothing", async () => {
    mkdirSync(join(workspace, "secrets"));
    writeFileSync(join(workspace, "secrets", "key"), "TOPSECRET");
    writeFileSync(join(workspace, ".env"), "TOPSECRET_ENV");
    const r = await sh("ls -A secrets | wc -l; cat .env; echo; touch secrets/new; echo touch=$?", {
      denySubpaths: ["secrets", ".env", "missing"],
    });
    expect(r.stdout.trim().split("\n")[0]).toBe("0");
    expect(r.stdout).not.toContain("TOPSECRET");
    expect(r.stdout).toMatch(/touch=1/);
    const b = box({ denySubpaths: ["missing"] });
    b.wrap({ command: "/bin/true", args: [], cwd: workspace, env: {} });
    expect(b.describe().notes.join(" ")).toMatch(/deny subpath .*missing does not exist/);
  });

  it("a denied directory above the workspace (FORGE_HOME) is hidden, the workspace inside stays writable", async () => {
    writeFileSync(join(base, "gate.key"), "GATEKEY");
    const r = await sh(`cat ${join(base, "gate.key")}; echo cat=$?; touch ok.txt; echo ok=$?`, {
      denySubpaths: [base],
    });
    expect(r.stdout).not.toContain("GATEKEY");
    expect(r.stdout).toMatch(/cat=1/);
    expect(r.stdout).toMatch(/ok=0/);
    expect(existsSync(join(workspace, "ok.txt"))).toBe(true);
  });

  it("read-only repo with write subpaths: only the subpath is writable", async () => {
    mkdirSync(join(workspace, "out"));
    const r = await sh("touch a.txt; echo a=$?; touch out/b.txt; echo b=$?", {
      readOnlyPaths: [workspace],
      writeSubpaths: ["out"],
    });
    expect(r.stdout).toMatch(/a=1/);
    expect(r.stdout).toMatch(/b=0/);
    expect(existsSync(join(workspace, "a.txt"))).toBe(false);
    expect(existsSync(join(workspace, "out", "b.txt"))).toBe(true);
  });

  it("a read-only path above the workspace does not cover the writable binds", async () => {
    const r = await sh("touch ok.txt; echo ok=$?", { readOnlyPaths: [base] });
    expect(r.stdout).toMatch(/ok=0/);
  });
});

function sleepers(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (cmd[0]?.endsWith("sleep") && cmd[1] === marker) pids.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

async function waitFor(cond: () => boolean, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}
