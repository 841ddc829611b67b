// Who a box runs as, and handing a tree to that user (real chown on real files).
import { lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BOX_ID, handToBox, resolveBoxUser } from "../../src/boxes/box-user.js";
import { BoxRefusedError } from "../../src/boxes/types.js";
import { tempDir } from "../helpers/git-repo.js";

const isRoot = process.getuid?.() === 0;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("resolveBoxUser", () => {
  it("as root: an unprivileged box uid/gid, 70000 unless FORGE_BOX_UID/GID say otherwise", () => {
    expect(DEFAULT_BOX_ID).toBe(70000);
    expect(resolveBoxUser({}, 0)).toEqual({ uid: 70000, gid: 70000, switched: true });
    expect(resolveBoxUser({ FORGE_BOX_UID: "71000", FORGE_BOX_GID: " 72000 " }, 0)).toEqual({
      uid: 71000,
      gid: 72000,
      switched: true,
    });
  });

  it("never root, never a non-number", () => {
    for (const bad of ["0", "-5", "70000x", "1e5", "4294967295", "root"]) {
      expect(() => resolveBoxUser({ FORGE_BOX_UID: bad }, 0), bad).toThrow(BoxRefusedError);
    }
    expect(() => resolveBoxUser({ FORGE_BOX_GID: "0" }, 0)).toThrow(/FORGE_BOX_GID=0/);
  });

  it("not root: the runner's own uid, no switch (and the variables do not matter)", () => {
    const u = resolveBoxUser({ FORGE_BOX_UID: "0" }, 1234);
    expect(u).toMatchObject({ uid: 1234, switched: false });
  });
});

describe.skipIf(!isRoot)("handToBox (root)", () => {
  const user = { uid: 70001, gid: 70002, switched: true };

  it("gives the whole tree to the box user and changes a link itself, never its target", async () => {
    const t = tempDir("forge-hand-");
    cleanups.push(t.cleanup);
    const tree = join(t.dir, "ws");
    mkdirSync(join(tree, "a", "b"), { recursive: true });
    writeFileSync(join(tree, "a", "b", "f.txt"), "x");
    const outside = join(t.dir, "host-file");
    writeFileSync(outside, "root's");
    mkdirSync(join(t.dir, "host-dir"));
    writeFileSync(join(t.dir, "host-dir", "inner"), "root's");
    symlinkSync(outside, join(tree, "link-to-file"));
    symlinkSync(join(t.dir, "host-dir"), join(tree, "a", "link-to-dir"));
    await handToBox(tree, user);
    for (const p of [tree, join(tree, "a", "b"), join(tree, "a", "b", "f.txt")]) {
      expect(statSync(p)).toMatchObject({ uid: 70001, gid: 70002 });
    }
    expect(lstatSync(join(tree, "link-to-file"))).toMatchObject({ uid: 70001 });
    // Neither a link's target nor anything under a linked directory changed hands.
    expect(statSync(outside).uid).toBe(0);
    expect(statSync(join(t.dir, "host-dir")).uid).toBe(0);
    expect(statSync(join(t.dir, "host-dir", "inner")).uid).toBe(0);
  });

  it("does nothing without a switched user", async () => {
    const t = tempDir("forge-hand-");
    cleanups.push(t.cleanup);
    await handToBox(t.dir, { uid: 70001, gid: 70002, switched: false });
    await handToBox(t.dir, undefined);
    expect(statSync(t.dir).uid).toBe(0);
  });

  it("is fast on a workspace of a few thousand files", async () => {
    const t = tempDir("forge-hand-");
    cleanups.push(t.cleanup);
    for (let d = 0; d < 60; d++) {
      mkdirSync(join(t.dir, `d${d}`));
      for (let f = 0; f < 50; f++) writeFileSync(join(t.dir, `d${d}`, `f${f}`), "x");
    }
    const started = performance.now();
    await handToBox(t.dir, user);
    const ms = performance.now() - started;
    // Reported, not asserted (the machine is shared): 15–60 ms here, by load.
    console.log(`handToBox: 3,061 entries in ${ms.toFixed(1)} ms`);
    expect(statSync(join(t.dir, "d59", "f49")).uid).toBe(70001);
  });
});
