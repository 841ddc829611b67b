// The door of one box (R4.6), with real bwrap boxes made as runs make them (createRunBox): each
// box reaches only its own proxy — another door's socket, open at the same moment for another
// run, is not even a path in it — the door's refusals come back as capped journal events, and
// the door leaves nothing behind. Under FORGE_EGRESS=host the door is the host network.
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { handToBox, resolveBoxUser } from "../../src/boxes/box-user.js";
import { createRunBox } from "../../src/boxes/run-box.js";
import type { NetworkSeam } from "../../src/boxes/types.js";
import { type Door, MAX_DENIED_EVENTS, openDoor } from "../../src/runner/egress-door.js";
import { ensureBuilt } from "../harness/build.js";
import { tempDir } from "../helpers/git-repo.js";

const ROOT = resolve(import.meta.dirname, "../..");
const USER = resolveBoxUser({});
const deps = {
  mode: "proxy" as const,
  boxKind: "bwrap" as const,
  boxUser: USER,
  installRoot: ROOT,
};
const cleanups: Array<() => unknown> = [];

beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function boxBehind(door: Door) {
  const t = tempDir("forge-door-");
  cleanups.push(t.cleanup);
  const ws = join(t.dir, "ws");
  const home = join(t.dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  await handToBox(ws, USER);
  await handToBox(home, USER);
  const make = (network: NetworkSeam) =>
    createRunBox("bwrap", {
      workspace: ws,
      home,
      allowNetwork: false,
      network,
      user: USER,
      installRoot: ROOT,
      env: {},
    });
  const box = door.wrapBox(make(door.network));
  return (js: string, ...args: string[]) =>
    execInBox(
      box,
      {
        command: process.execPath,
        args: ["-e", js, ...args],
        cwd: ws,
        env: { PATH: "/usr/bin:/bin", HOME: home },
      },
      { timeoutMs: 30_000 },
    );
}

/** CONNECT through the box's own proxy variables; prints the status, or the error code. */
const CONNECT = `
const http = require("http");
const p = new URL(process.env.HTTPS_PROXY);
const q = http.request({ host: p.hostname, port: p.port, method: "CONNECT", path: process.argv[1] });
q.on("connect", (res, s) => { console.log(res.statusCode); s.destroy(); });
q.on("error", (e) => console.log(e.code));
q.end();`;

/** Speaks to a Unix socket path directly, as a process that found another box's socket would. */
const DIRECT = `
const net = require("net");
const s = net.connect({ path: process.argv[1] });
s.on("connect", () => { console.log("connected"); s.destroy(); });
s.on("error", (e) => console.log(e.code));`;

describe("a box's egress door", () => {
  it("a box reaches only its own proxy: another run's socket is not in it, and refusals stay with their door", async () => {
    const a = await openDoor(deps, { phase: "agent", role: "builder", index: 1, rules: [] });
    const b = await openDoor(deps, { phase: "setup", rules: [] });
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const socketA = a.network.proxySocket ?? "";
    expect(existsSync(socketA)).toBe(true);
    const inB = await boxBehind(b);
    const direct = await inB(DIRECT, socketA);
    expect(direct.stdout.trim(), direct.stderr).toBe("ENOENT");
    const own = await inB(CONNECT, "not-allowed.example.org:443");
    expect(own.stdout.trim(), own.stderr).toBe("403");
    const eventsB = await b.close();
    const eventsA = await a.close();
    expect(eventsA).toEqual([]);
    expect(eventsB.map((e) => [e.type, e.data.phase, e.data.host, e.data.port])).toEqual([
      ["egress.denied", "setup", "not-allowed.example.org", 443],
    ]);
    // Closed: the socket and its directory are gone.
    expect(existsSync(socketA)).toBe(false);
  }, 60_000);

  it("keeps the first refusals as events and counts the rest in the last one", async () => {
    const door = await openDoor(deps, { phase: "controls", role: "builder", index: 1, rules: [] });
    cleanups.push(() => door.close());
    const run = await boxBehind(door);
    const many = `
const http = require("http");
const p = new URL(process.env.HTTPS_PROXY);
let left = ${MAX_DENIED_EVENTS + 5};
const one = (i) => new Promise((r) => {
  const q = http.request({ host: p.hostname, port: p.port, method: "CONNECT", path: "h" + i + ".example.org:443" });
  q.on("connect", (res, s) => { s.destroy(); r(); });
  q.on("error", r);
  q.end();
});
(async () => { for (let i = 0; i < left; i++) await one(i); console.log("done"); })();`;
    const r = await run(many);
    expect(r.stdout.trim(), r.stderr).toBe("done");
    const events = await door.close();
    expect(events).toHaveLength(MAX_DENIED_EVENTS);
    expect(events[0]?.data).toMatchObject({ phase: "controls", role: "builder", index: 1 });
    expect(events.at(-1)?.data.more).toBe(5);
  }, 60_000);

  it("FORGE_EGRESS=host, or a box kind without the proxy: the host network, nothing wrapped", async () => {
    for (const d of [
      { ...deps, mode: "host" as const },
      { ...deps, boxKind: "worktree" as const },
    ]) {
      const door = await openDoor(d, { phase: "agent", rules: [] });
      expect(door.network).toEqual({ mode: "host" });
      expect(await door.close()).toEqual([]);
    }
  });
});
