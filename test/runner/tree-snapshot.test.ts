import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  cleanSnapshot,
  diffSnapshots,
  isClean,
  restoreTree,
  snapshotTree,
} from "../../src/runner/tree-snapshot.js";
import { gitIn, makeRepo, tempDir, writeFiles } from "../helpers/git-repo.js";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function repo(): string {
  const t = tempDir();
  cleanup = t.cleanup;
  makeRepo(t.dir, { "a.txt": "a\n", ".gitignore": "build/\n", "src/b.ts": "b\n" });
  return t.dir;
}

describe("write detection (R4.5)", () => {
  it("sees nothing when nothing changed", async () => {
    const dir = repo();
    const before = await snapshotTree(dir);
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual([]);
  });

  it.each([
    [
      "a new untracked file (git diff --output=x)",
      (d: string) => writeFileSync(join(d, "x"), "diff"),
    ],
    ["a modified tracked file", (d: string) => writeFileSync(join(d, "a.txt"), "changed\n")],
    ["a deleted file", (d: string) => gitIn(d, "rm", "-q", "src/b.ts")],
    ["a file under an ignored dir", (d: string) => writeFiles(d, { "build/out.js": "1" })],
    ["a new symlink", (d: string) => symlinkSync("/etc/passwd", join(d, "link"))],
  ])("detects %s and restores the tree", async (_name, write) => {
    const dir = repo();
    const before = await snapshotTree(dir);
    write(dir);
    const changed = diffSnapshots(before, await snapshotTree(dir));
    expect(changed.length).toBeGreaterThan(0);
    await restoreTree(dir, before);
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual([]);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
    expect(existsSync(join(dir, "x"))).toBe(false);
  });

  it("detects a second write to an already modified file", async () => {
    const dir = repo();
    writeFileSync(join(dir, "a.txt"), "one\n");
    const before = await snapshotTree(dir);
    writeFileSync(join(dir, "a.txt"), "two\n");
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual(["a.txt"]);
  });

  it("detects a new tag and a moved branch (refs other than HEAD)", async () => {
    const dir = repo();
    gitIn(dir, "branch", "side");
    const before = await snapshotTree(dir);
    gitIn(dir, "tag", "v9");
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual([
      "refs (a branch or tag was created or moved)",
    ]);
    gitIn(dir, "tag", "-d", "v9");
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual([]);
    gitIn(dir, "commit", "-q", "--allow-empty", "-m", "on main");
    gitIn(dir, "reset", "-q", "--soft", "HEAD~1");
    gitIn(dir, "branch", "-f", "side", "HEAD@{1}");
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual([
      "refs (a branch or tag was created or moved)",
    ]);
  });

  it("detects a commit and a new branch", async () => {
    const dir = repo();
    const before = await snapshotTree(dir);
    gitIn(dir, "branch", "sneaky");
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual([
      "refs (a branch or tag was created or moved)",
    ]);
    writeFileSync(join(dir, "c.txt"), "c");
    gitIn(dir, "add", "c.txt");
    gitIn(dir, "commit", "-q", "-m", "architect commits");
    const changed = diffSnapshots(before, await snapshotTree(dir));
    expect(changed.some((c) => c.startsWith("HEAD ("))).toBe(true);
    await restoreTree(dir, before);
    expect(existsSync(join(dir, "c.txt"))).toBe(false);
  });
});

describe("special files in the tree", () => {
  it("a tracked file turned into a FIFO is seen without being opened: a snapshot never waits on it", async () => {
    const dir = repo();
    const before = await snapshotTree(dir);
    rmSync(join(dir, "a.txt"));
    execFileSync("mkfifo", [join(dir, "a.txt")]);
    expect(diffSnapshots(before, await snapshotTree(dir))).toEqual(["a.txt"]);
    // The reset puts the file back.
    expect(isClean(await cleanSnapshot(dir))).toBe(true);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
  }, 10_000);
});

describe("cleanSnapshot: a read-only step starts from a clean tree", () => {
  it("leaves a clean tree alone, ignored files included", async () => {
    const dir = repo();
    writeFiles(dir, { "build/cache.bin": "kept" });
    const snap = await cleanSnapshot(dir);
    expect(isClean(snap)).toBe(true);
    expect(readFileSync(join(dir, "build/cache.bin"), "utf8")).toBe("kept");
    expect(diffSnapshots(snap, await snapshotTree(dir))).toEqual([]);
  });

  it("resets a dirty tree to HEAD first: tracked edits, staged files and untracked files go", async () => {
    const dir = repo();
    const head = gitIn(dir, "rev-parse", "HEAD").trim();
    writeFileSync(join(dir, "a.txt"), "left by a crashed attempt\n");
    writeFiles(dir, { "notes/x.md": "untracked", "staged.txt": "staged", "build/out.js": "1" });
    gitIn(dir, "add", "staged.txt");
    expect(isClean(await snapshotTree(dir))).toBe(false);

    const snap = await cleanSnapshot(dir);
    expect(isClean(snap)).toBe(true);
    expect(snap.head).toBe(head);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
    expect(existsSync(join(dir, "notes/x.md"))).toBe(false);
    expect(existsSync(join(dir, "staged.txt"))).toBe(false);
    // Ignored files are not the step's to remove (clean -fd, as before: no -x).
    expect(existsSync(join(dir, "build/out.js"))).toBe(true);
  });
});
