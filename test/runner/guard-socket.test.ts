// The guard socket as a switched box user reaches it: real socket, real bwrap box.
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { handToBox } from "../../src/boxes/box-user.js";
import { createBox } from "../../src/boxes/create-box.js";
import { type GuardSocket, openGuardSocket } from "../../src/runner/guard-socket.js";
import { tempDir } from "../helpers/git-repo.js";

const isRoot = process.getuid?.() === 0;
const USER = { uid: 70000, gid: 70000, switched: true };
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function open(user?: typeof USER): Promise<GuardSocket> {
  const sock = await openGuardSocket("/tmp", user);
  if (!sock) throw new Error("no guard socket on this platform");
  cleanups.push(() => {
    sock.close();
    sock.remove();
  });
  return sock;
}

/** Connects to the socket from a box that runs as the box user. */
async function connectFromBox(sock: GuardSocket): Promise<string> {
  const t = tempDir("forge-gsock-");
  cleanups.push(t.cleanup);
  const workspace = join(t.dir, "ws");
  const home = join(t.dir, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  await handToBox(t.dir, USER);
  const box = createBox("bwrap", {
    workspace,
    home,
    allowNetwork: false,
    user: USER,
    readOnlyPaths: [sock.dir],
  });
  const js =
    "require('net').connect(process.argv[1]).on('connect',()=>{console.log('connected');process.exit(0)})" +
    ".on('error',e=>{console.log(e.code);process.exit(1)})";
  const r = await execInBox(box, {
    command: process.execPath,
    args: ["-e", js, sock.path],
    cwd: workspace,
    env: { PATH: "/usr/bin:/bin", HOME: home },
  });
  return r.stdout.trim() || r.stderr;
}

describe.skipIf(!isRoot)("guard socket for a switched box user", () => {
  it("the directory (0700) and the socket (0600) belong to the box user, who can connect", async () => {
    const sock = await open(USER);
    expect(statSync(sock.dir)).toMatchObject({ uid: 70000, gid: 70000 });
    expect(statSync(sock.dir).mode & 0o777).toBe(0o700);
    expect(statSync(sock.path)).toMatchObject({ uid: 70000, gid: 70000 });
    expect(statSync(sock.path).mode & 0o777).toBe(0o600);
    expect(await connectFromBox(sock)).toBe("connected");
  });

  it("without the user, the box user is refused (the handing is what opens it)", async () => {
    const sock = await open();
    expect(statSync(sock.dir).uid).toBe(0);
    expect(await connectFromBox(sock)).toBe("EACCES");
  });
});
