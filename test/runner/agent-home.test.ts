// An agent HOME that the box user owns, its login file readable by that user alone.
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { handToBox } from "../../src/boxes/box-user.js";
import { createBox } from "../../src/boxes/create-box.js";
import { createAgentHome } from "../../src/runner/agent-home.js";
import { tempDir } from "../helpers/git-repo.js";

const isRoot = process.getuid?.() === 0;
const USER = { uid: 70000, gid: 70000, switched: true };
const FAKE_LOGIN = '{"claudeAiOauth":{"accessToken":"fake-token-for-tests-only"}}';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const t = tempDir("forge-ahome-");
  cleanups.push(t.cleanup);
  const login = join(t.dir, "operator-login.json");
  writeFileSync(login, FAKE_LOGIN, { mode: 0o600 });
  const ws = join(t.dir, "ws");
  mkdirSync(ws);
  return { dir: t.dir, login, home: join(t.dir, "step", "home"), ws };
}

describe.skipIf(!isRoot)("createAgentHome with a switched box user", () => {
  it("the HOME and every file in it are the box user's; the login stays 0600 and the box reads it", async () => {
    const s = setup();
    await createAgentHome({ home: s.home, claudeCredentials: s.login, user: USER });
    const creds = join(s.home, ".claude", ".credentials.json");
    for (const p of [s.home, join(s.home, ".claude"), join(s.home, ".gitconfig"), creds]) {
      expect(statSync(p), p).toMatchObject({ uid: 70000, gid: 70000 });
    }
    expect(statSync(creds).mode & 0o777).toBe(0o600);
    await handToBox(s.ws, USER);
    const box = createBox("bwrap", {
      workspace: s.ws,
      home: s.home,
      allowNetwork: false,
      user: USER,
    });
    const r = await execInBox(box, {
      command: "/bin/sh",
      args: ["-c", 'cat "$HOME/.claude/.credentials.json"; touch "$HOME/x" && echo writable'],
      cwd: s.ws,
      env: { PATH: "/usr/bin:/bin", HOME: s.home },
    });
    expect(r.stdout, r.stderr).toContain("fake-token-for-tests-only");
    expect(r.stdout).toContain("writable");
  });

  it("without a user nothing changes hands (the old call sites)", async () => {
    const s = setup();
    await createAgentHome({ home: s.home, claudeCredentials: s.login });
    expect(statSync(join(s.home, ".claude", ".credentials.json")).uid).toBe(0);
  });
});
