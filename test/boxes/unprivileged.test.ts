// Real bwrap, run by root with a switched box user: no process in the box holds the host's
// root, so the host's own permissions protect root-only files even where a path is visible.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { handToBox } from "../../src/boxes/box-user.js";
import { createBox } from "../../src/boxes/create-box.js";
import { type BoxOptions, BoxRefusedError } from "../../src/boxes/types.js";
import { tempDir } from "../helpers/git-repo.js";

const isRoot = process.getuid?.() === 0;
const USER = { uid: 70000, gid: 70000, switched: true };
const PATH = "/usr/local/bin:/usr/bin:/bin";
let forgeHome: string;
let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(async () => {
  // Laid out as runs are: the workspace deep inside a 0700 FORGE_HOME the box user cannot enter.
  const t = tempDir("forge-unpriv-");
  cleanup = t.cleanup;
  forgeHome = t.dir;
  workspace = join(forgeHome, "work", "run-1", "ws");
  home = join(forgeHome, "work", "run-1", "home");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(forgeHome, "gate.key"), "FAKE_GATE_KEY_0123456789");
  await handToBox(workspace, USER);
  await handToBox(home, USER);
});
afterEach(() => cleanup());

function sh(script: string, extra: Partial<BoxOptions> = {}) {
  const box = createBox("bwrap", { workspace, home, allowNetwork: false, user: USER, ...extra });
  return execInBox(box, {
    command: "/bin/sh",
    args: ["-c", script],
    cwd: workspace,
    env: { PATH, HOME: home },
  });
}

describe.skipIf(!isRoot)("bwrap box with a switched user (runner is root)", () => {
  it("every uid and gid in the box is the box user's, and passwd names it forge", async () => {
    const r = await sh(
      'grep -E "^(Uid|Gid|Groups):" /proc/self/status; id -un; id -gn; echo "$(getent passwd forge)"',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Uid:\s+70000\s+70000\s+70000\s+70000$/m);
    expect(r.stdout).toMatch(/^Gid:\s+70000\s+70000\s+70000\s+70000$/m);
    expect(r.stdout).toMatch(/^Groups:\s*$/m);
    expect(r.stdout).toContain("\nforge\nforge\n");
    expect(r.stdout).toContain(`forge:x:70000:70000:forgechain box:${home}:/bin/sh`);
    // Written by the box before it dropped to its user: root's, and the user cannot change them.
    const w = await sh(
      "echo 'x::0:0::/:/bin/sh' >> /etc/passwd; echo passwd=$?; touch /etc/x; echo etc=$?",
    );
    expect(w.stdout).toMatch(/passwd=[12]/);
    expect(w.stdout).toMatch(/etc=1/);
  });

  it("holds no capability at all: effective, permitted, inheritable, ambient and bounding sets empty, no_new_privs", async () => {
    const r = await sh("grep -E '^(Cap|NoNewPrivs)' /proc/self/status");
    for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
      expect(r.stdout).toMatch(new RegExp(`^${set}:\\s+0000000000000000$`, "m"));
    }
    expect(r.stdout).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it("a root-only host file stays unreadable even when bound into the box; so does /etc/shadow", async () => {
    const secret = join(forgeHome, "deploy-key.pem");
    writeFileSync(secret, "FAKE_PRIVATE_KEY_for_tests_only");
    chmodSync(secret, 0o600);
    const r = await sh(`cat ${secret}; echo cat=$?`, { readOnlyPaths: [secret] });
    expect(r.stdout).not.toContain("FAKE_PRIVATE_KEY");
    expect(r.stdout).toMatch(/cat=1/);
    expect(r.stderr).toMatch(/Permission denied/);
    // /etc/shadow is not in the allowlist; shown anyway (a deployment's FORGE_BOX_PATHS), the
    // box user still cannot read it.
    const shadow = await sh("cat /etc/shadow; echo cat=$?", { readOnlyPaths: ["/etc/shadow"] });
    expect(shadow.stdout).toMatch(/cat=1/);
    expect(shadow.stderr).toMatch(/Permission denied/);
  });

  it("reaches its workspace through FORGE_HOME (0700) yet sees nothing else of it", async () => {
    const r = await sh(
      // By its path, not only the cwd bwrap set up as root: every directory on the way must open.
      `touch ${join(workspace, "ok.txt")}; echo touch=$?; cat ${join(forgeHome, "gate.key")}; echo key=$?; ls -A ${forgeHome}`,
      { denySubpaths: [forgeHome] },
    );
    expect(r.stdout).toMatch(/touch=0/);
    expect(r.stdout).toMatch(/key=1/);
    expect(r.stdout).not.toContain("FAKE_GATE_KEY");
    expect(r.stdout.trim().split("\n").at(-1)).toBe("work");
    expect(statSync(join(workspace, "ok.txt")).uid).toBe(70000);
  });

  it("writes a workspace handed to it, not one that was not", async () => {
    const notHanded = join(forgeHome, "work", "run-2", "ws");
    mkdirSync(notHanded, { recursive: true });
    const r = await sh(
      `echo x > ${join(notHanded, "w.txt")}; echo other=$?; echo y > mine.txt; echo mine=$?`,
      {
        readOnlyPaths: [],
        writeSubpaths: [notHanded],
      },
    );
    expect(r.stdout).toMatch(/other=[12]/);
    expect(r.stdout).toMatch(/mine=0/);
    expect(existsSync(join(notHanded, "w.txt"))).toBe(false);
    expect(readFileSync(join(workspace, "mine.txt"), "utf8")).toBe("y\n");
  });

  it("the empty /tmp and /var/tmp are writable by the box user, HOME too", async () => {
    const r = await sh('touch /tmp/a /var/tmp/b "$HOME/c" && echo ok');
    expect(r.stdout, r.stderr).toContain("ok");
  });

  it("git, node and python run as the box user and know who it is", async () => {
    execFileSync("git", ["init", "-q", workspace]);
    await handToBox(workspace, USER);
    const r = await sh(
      [
        "git -c user.email=f@example.invalid commit -q --allow-empty -m m && git log -1 --format=%an",
        `${process.execPath} -e 'console.log(require("os").userInfo().username)'`,
        "/usr/bin/python3 -c 'import getpass; print(getpass.getuser())'",
      ].join("; "),
    );
    expect(r.stderr).toBe("");
    // git takes the committer name from passwd's GECOS field when none is configured.
    expect(r.stdout.split("\n").slice(0, 3)).toEqual(["forgechain box", "forge", "forge"]);
  });

  it("refuses a user switch without setpriv, naming util-linux", () => {
    expect(() =>
      createBox("bwrap", {
        workspace,
        home,
        allowNetwork: false,
        user: USER,
        setprivPath: "/nonexistent/setpriv",
      }),
    ).toThrow(/install util-linux/);
    expect(() =>
      createBox("bwrap", {
        workspace,
        home,
        allowNetwork: false,
        user: { uid: 0, gid: 0, switched: true },
      }),
    ).toThrow(BoxRefusedError);
  });

  it("refuses loader variables: setpriv would honour them while it still holds CAP_SETUID", () => {
    const box = createBox("bwrap", { workspace, home, allowNetwork: false, user: USER });
    expect(() =>
      box.wrap({
        command: "/bin/true",
        args: [],
        cwd: workspace,
        env: { LD_PRELOAD: "/tmp/x.so" },
      }),
    ).toThrow(/LD_PRELOAD/);
    expect(box.describe().isolation.join(" ")).toMatch(/runs as uid 70000/);
  });
});
