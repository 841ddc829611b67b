// Real bwrap: a box sees an allowlist of the host, not `/` minus a denylist. Run boxes are
// built through createRunBox, as the runner and `forge box prove` build them.
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { handToBox, resolveBoxUser } from "../../src/boxes/box-user.js";
import { createBox } from "../../src/boxes/create-box.js";
import { ETC_ALLOWLIST } from "../../src/boxes/host-view.js";
import { createRunBox, parseBoxPaths, type RunBoxOptions } from "../../src/boxes/run-box.js";
import { TOOLBOX_ENTRIES, toolboxPaths } from "../../src/boxes/toolbox.js";
import type { Box } from "../../src/boxes/types.js";
import { tempDir } from "../helpers/git-repo.js";

const ROOT = join(import.meta.dirname, "..", "..");
const PATH = "/usr/local/bin:/usr/bin:/bin";
const USER = resolveBoxUser({});
const isRoot = process.getuid?.() === 0;
let base: string;
let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(async () => {
  const t = tempDir("forge-allow-");
  cleanup = t.cleanup;
  base = t.dir;
  workspace = join(base, "ws");
  home = join(base, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  await handToBox(workspace, USER);
  await handToBox(home, USER);
});
afterEach(() => cleanup());

function run(box: Box, script: string) {
  return execInBox(box, {
    command: "/bin/sh",
    args: ["-c", script],
    cwd: workspace,
    env: { PATH, HOME: home },
  });
}
const plainBox = (network = false) =>
  createBox("bwrap", { workspace, home, allowNetwork: network, user: USER });
const runBox = (o: Partial<RunBoxOptions> = {}) =>
  createRunBox("bwrap", {
    workspace,
    home,
    allowNetwork: false,
    user: USER,
    installRoot: ROOT,
    env: {},
    ...o,
  });

/** A stand-in install root: its toolbox entries, its settings, and a deployment .env. */
function fakeInstall(parent: string): string {
  const root = join(parent, "forgechain");
  for (const d of ["bin", "dist", "node_modules", "settings"])
    mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, "bin", "forge.js"), "// launcher\n");
  writeFileSync(join(root, "package.json"), "{}\n");
  writeFileSync(join(root, ".env"), "GITHUB_APP_PRIVATE_KEY=FAKE_KEY_for_tests_only\n");
  return root;
}

describe("the box sees an allowlist of the host", () => {
  it("no host directory outside the allowlist exists; the masked ones are empty", async () => {
    const r = await run(plainBox(), "ls -A /; echo ---; ls -A /root /home /run /mnt /media /var");
    const [top = "", masked = ""] = r.stdout.split("---\n");
    const allowed = ["bin", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media"];
    allowed.push("mnt", "proc", "root", "run", "sbin", "tmp", "usr", "var");
    expect(
      top
        .trim()
        .split("\n")
        .filter((n) => !allowed.includes(n)),
    ).toEqual([]);
    for (const absent of ["srv", "opt", "work", "boot", "sys"])
      expect(top.split("\n")).not.toContain(absent);
    // Each masked directory lists nothing; /var holds only the box's own tmp.
    expect(masked.split("\n").filter((l) => l && !l.endsWith(":") && l !== "tmp")).toEqual([]);
  });

  it("/etc holds only the listed files and the box's own passwd and group", async () => {
    const r = await run(plainBox(), "ls -A /etc; echo ---; cat /etc/passwd");
    const [names = "", passwd = ""] = r.stdout.split("---\n");
    const tops = new Set(ETC_ALLOWLIST.map((e) => e.split("/")[0]));
    const extra = names
      .trim()
      .split("\n")
      .filter((n) => !tops.has(n) && !/^python3\.\d+$/.test(n) && n !== "passwd" && n !== "group");
    expect(extra).toEqual([]);
    expect(names).not.toMatch(/^(shadow|gitconfig|resolv\.conf|hostname|machine-id)$/m);
    expect(
      passwd
        .trim()
        .split("\n")
        .map((l) => l.split(":")[0]),
    ).toEqual(USER.uid === 0 ? ["root", "nobody"] : ["root", "forge", "nobody"]);
    const withNet = await run(plainBox(true), "test -e /etc/resolv.conf && echo resolv");
    expect(withNet.stdout).toContain("resolv");
  });

  it("a host secret outside the allowlist is not there: /srv, FORGE_HOME, host homes", async () => {
    const forgeHome = tempDir("forge-home-like-");
    writeFileSync(join(forgeHome.dir, "gate.key"), "FAKE_GATE_KEY");
    const srv = isRoot ? join("/srv", `forge-test-${process.pid}`) : null;
    if (srv) {
      mkdirSync(srv, { recursive: true });
      writeFileSync(join(srv, "app.env"), "WEBHOOK_SECRET=FAKE_for_tests_only\n");
    }
    const homes = ["/root", "/home"].flatMap((d) => {
      const first = safeList(d)[0];
      return first ? [join(d, first)] : [];
    });
    try {
      const probes = [
        join(forgeHome.dir, "gate.key"),
        forgeHome.dir,
        ...(srv ? [join(srv, "app.env")] : []),
        ...homes,
      ];
      const r = await run(
        runBox(),
        `for p in ${probes.map((p) => `'${p}'`).join(" ")}; do test -e "$p" && echo "SEEN $p"; done; echo done`,
      );
      expect(r.stdout.trim()).toBe("done");
      expect(probes.length).toBeGreaterThan(2);
    } finally {
      forgeHome.cleanup();
      if (srv) rmSync(srv, { recursive: true, force: true });
    }
  });

  it("of the install root a run box sees the toolbox entries only: never its .env or settings", async () => {
    // Denying the .env (as `forge box prove` does) must not make it appear, as /dev/null.
    const install = fakeInstall(base);
    const r = await run(
      runBox({ installRoot: install, denySubpaths: [join(install, ".env")] }),
      `ls -A ${install}; cat ${install}/.env; echo cat=$?`,
    );
    expect(r.stdout.split("\n").slice(0, 4)).toEqual([
      "bin",
      "dist",
      "node_modules",
      "package.json",
    ]);
    expect(r.stdout).toMatch(/cat=1/);
    expect(r.stdout).not.toContain("FAKE_KEY");
  });

  it("the install root stays emptied even inside a toolchain path that shows its parent (an npm install under /usr)", async () => {
    const toolchains = join(base, "toolchains");
    const install = fakeInstall(toolchains);
    writeFileSync(join(toolchains, "jdk.txt"), "a toolchain\n");
    const r = await run(
      runBox({ installRoot: install, env: { FORGE_BOX_PATHS: toolchains } }),
      `cat ${toolchains}/jdk.txt; cat ${install}/.env; echo cat=$?; ls ${install}/settings; echo ls=$?`,
    );
    expect(r.stdout).toContain("a toolchain");
    expect(r.stdout).not.toContain("FAKE_KEY");
    expect(r.stdout).toMatch(/cat=1/);
    expect(r.stdout).toMatch(/ls=[12]/);
  });

  it("a toolchain path that is a link shows as the same link, with its target", async () => {
    mkdirSync(join(base, "node-v99", "bin"), { recursive: true });
    writeFileSync(join(base, "node-v99", "bin", "tool"), "#!/bin/sh\necho tool-ran\n", {
      mode: 0o755,
    });
    symlinkSync(join(base, "node-v99"), join(base, "node"));
    const r = await run(
      runBox({ extraPaths: [join(base, "node")] }),
      `readlink ${base}/node; ${base}/node/bin/tool`,
    );
    expect(r.stdout).toBe(`${join(base, "node-v99")}\ntool-ran\n`);
  });

  it("refuses a read-only path that would show the install root whole, and bad FORGE_BOX_PATHS", () => {
    expect(() => runBox({ readOnlyPaths: [ROOT] })).toThrow(/install root .* whole/);
    expect(() => runBox({ readOnlyPaths: [join(ROOT, "..")] })).toThrow(/install root/);
    expect(() => parseBoxPaths({ FORGE_BOX_PATHS: "opt/jdk" })).toThrow(/absolute path/);
    expect(() => parseBoxPaths({ FORGE_BOX_PATHS: "/usr:/" })).toThrow(/whole host/);
    expect(() => parseBoxPaths({ FORGE_BOX_PATHS: "/nonexistent-forge-x" })).toThrow(
      /does not exist/,
    );
    expect(parseBoxPaths({ FORGE_BOX_PATHS: "/usr/lib/:/usr/share::" })).toEqual([
      "/usr/lib",
      "/usr/share",
    ]);
  });

  it("toolboxPaths: the entries the in-box commands load, and node's prefix only when the system view lacks it", () => {
    expect(TOOLBOX_ENTRIES).toEqual(["bin", "dist", "node_modules", "package.json"]);
    expect(toolboxPaths(ROOT, "/usr/bin/node")).toEqual(TOOLBOX_ENTRIES.map((e) => join(ROOT, e)));
    expect(toolboxPaths(ROOT, "/opt/node-v20/bin/node").at(-1)).toBe("/opt/node-v20");
  });

  it("the chain's tools run in a run box: bash, make, git, node, python3, the claude binary", async () => {
    const claude = join(ROOT, "node_modules", ".bin", "claude");
    const r = await run(
      runBox(),
      [
        "bash --version | head -1",
        "make --version | head -1",
        "git --version",
        `${process.execPath} -e 'console.log("node", process.version)'`,
        "/usr/bin/python3 -c 'print(\"python ok\")'",
        `${claude} --version`,
      ].join(" && "),
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /GNU bash[\s\S]*GNU Make[\s\S]*git version[\s\S]*node v\d+[\s\S]*python ok[\s\S]*Claude Code/,
    );
  });
});

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
