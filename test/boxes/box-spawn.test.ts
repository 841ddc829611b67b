// A kill takes the whole box at any moment, also in bwrap's first milliseconds, when the
// launcher alone used to leave the box's init orphaned (holding our pipes, or running the
// command unattended). Real bwrap boxes, killed at spread-out moments right after the spawn.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnBoxed } from "../../src/boxes/box-spawn.js";
import { createBox } from "../../src/boxes/create-box.js";

let base: string;
let workspace: string;
let home: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "forge-spawn-"));
  workspace = join(base, "ws");
  home = join(base, "home");
  mkdirSync(workspace);
  mkdirSync(home);
});
afterEach(() => {
  for (const pid of holders(currentMarker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  rmSync(base, { recursive: true, force: true });
});

let currentMarker = "";

/** Every process whose argv names the marker: the bwrap launcher and init, the sleepers. */
function holders(marker: string): number[] {
  if (!marker) return [];
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv.some((a) => a.includes(marker))) pids.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return pids;
}

function boxedSleepers(marker: string) {
  const box = createBox("bwrap", { workspace, home, allowNetwork: false });
  return box.wrap({
    command: "/bin/sh",
    args: ["-c", `sleep ${marker} & exec sleep ${marker}`, "forge-test"],
    cwd: workspace,
    env: { PATH: "/usr/bin:/bin" },
  });
}

/** Polls `cond` every 50 ms for up to 10 s; returns its last value. */
async function waitUntil(cond: () => boolean): Promise<boolean> {
  const end = Date.now() + 10_000;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return cond();
}

function busyWaitMicros(us: number): void {
  const end = process.hrtime.bigint() + BigInt(us) * 1000n;
  while (process.hrtime.bigint() < end) {
    // spin: a timer cannot hit the first milliseconds of bwrap's start
  }
}

describe("spawnBoxed kills the whole bwrap box", () => {
  it("killed at any moment of its start, the box ends and its pipes close", async () => {
    currentMarker = `${3000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const wrapped = boxedSleepers(currentMarker);
    expect(wrapped.withInfoFd).toBeTypeOf("function");
    const hung: number[] = [];
    for (let i = 0; i < 30; i++) {
      const boxed = spawnBoxed(wrapped);
      const closed = new Promise<string>((r) => boxed.child.on("close", () => r("closed")));
      busyWaitMicros((i % 15) * 500); // 0 to 7 ms: before, during and after bwrap's set-up
      boxed.kill();
      const outcome = await Promise.race([
        closed,
        new Promise<string>((r) => setTimeout(() => r("hung"), 3000)),
      ]);
      if (outcome === "hung") hung.push(i);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(hung).toEqual([]);
    expect(holders(currentMarker)).toEqual([]);
  });

  it("killed while running, the box and everything it started end", async () => {
    currentMarker = `${5000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const boxed = spawnBoxed(boxedSleepers(currentMarker));
    const closed = new Promise<void>((r) => boxed.child.on("close", () => r()));
    await waitUntil(() => holders(currentMarker).length >= 4);
    expect(holders(currentMarker).length).toBeGreaterThanOrEqual(4); // launcher, init, 2 sleeps
    boxed.kill();
    await closed;
    await new Promise((r) => setTimeout(r, 300));
    expect(holders(currentMarker)).toEqual([]);
  });

  it("a command without a box report is killed with its process group", async () => {
    currentMarker = `${6000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const boxed = spawnBoxed({
      command: "/bin/sh",
      args: ["-c", `sleep ${currentMarker} & sleep ${currentMarker}; true`],
      env: { PATH: "/usr/bin:/bin" },
    });
    const closed = new Promise<void>((r) => boxed.child.on("close", () => r()));
    await waitUntil(() => holders(currentMarker).length >= 3);
    boxed.kill();
    await closed;
    await new Promise((r) => setTimeout(r, 200));
    expect(holders(currentMarker)).toEqual([]);
  });

  // The init's own session escapes the group kill; only the reported pid reaches it. A
  // stand-in launcher reports a setsid'd process as its init, deterministically. (The
  // stand-in init lets go of our pipes, so only the kill decides whether it lives.)
  function fakeLauncher(initBinary: string, marker: string) {
    return {
      command: "/bin/sh",
      args: ["-c", "exit 99"],
      env: { PATH: "/usr/bin:/bin" },
      withInfoFd: (fd: number) => [
        "-c",
        `setsid "$0" ${marker} </dev/null >/dev/null 2>&1 ${fd}>&- & echo "{\\"child-pid\\": $!}" >&${fd}; exec sleep ${marker}`,
        initBinary,
      ],
    };
  }

  /** Waits until a process runs `binary marker` (argv exactly), returns whether one does. */
  async function running(binary: string, marker: string): Promise<boolean> {
    const has = () =>
      holders(marker).some((pid) => {
        try {
          const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
          return argv[0] === binary && argv[1] === marker;
        } catch {
          return false;
        }
      });
    return waitUntil(has);
  }

  it("the init the box reports is killed even outside the launcher's process group", async () => {
    currentMarker = `${7000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const fakeBwrap = join(base, "bwrap");
    copyFileSync("/bin/sleep", fakeBwrap);
    const boxed = spawnBoxed(fakeLauncher(fakeBwrap, currentMarker));
    const closed = new Promise<void>((r) => boxed.child.on("close", () => r()));
    expect(await running(fakeBwrap, currentMarker)).toBe(true);
    expect(await running("sleep", currentMarker)).toBe(true);
    await new Promise((r) => setTimeout(r, 100)); // the report reaches us
    boxed.kill();
    await closed;
    await new Promise((r) => setTimeout(r, 200));
    expect(holders(currentMarker)).toEqual([]);
  });

  it("a reported pid that is not a bwrap process is left alone (a recycled pid)", async () => {
    currentMarker = `${8000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const boxed = spawnBoxed(fakeLauncher("/bin/sleep", currentMarker));
    const closed = new Promise<void>((r) => boxed.child.on("close", () => r()));
    expect(await running("/bin/sleep", currentMarker)).toBe(true);
    expect(await running("sleep", currentMarker)).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    boxed.kill();
    await closed;
    await new Promise((r) => setTimeout(r, 200));
    expect(await running("/bin/sleep", currentMarker)).toBe(true); // not ours to kill
  });

  it("a box with an outside stop command (a container) gets it run on kill, once", async () => {
    const log = join(base, "stopped.log");
    const boxed = spawnBoxed({
      command: "/bin/sleep",
      args: ["30"],
      env: { PATH: "/usr/bin:/bin", LOG: log },
      stop: { command: "/bin/sh", args: ["-c", 'echo "kill $0" >> "$LOG"', "forge-box-x"] },
    });
    const closed = new Promise<void>((r) => boxed.child.on("close", () => r()));
    boxed.kill();
    boxed.kill();
    await closed;
    await waitUntil(() => existsSync(log));
    await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(log, "utf8")).toBe("kill forge-box-x\n");
  });
});
