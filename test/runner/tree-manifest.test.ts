// Write detection without git (tree-manifest.ts): every kind of change a read-only step could
// make to its workspace is seen, nothing is opened or followed, and no git runs.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedPaths, detectWrites, manifestOf } from "../../src/runner/tree-manifest.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function workspace(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  makeRepo(t.dir, { "a.txt": "a\n", "src/b.ts": "b\n" });
  return t.dir;
}

describe("manifestOf / detectWrites", () => {
  it("an untouched workspace shows no change, reading it changes nothing", async () => {
    const dir = workspace();
    const before = await manifestOf(dir);
    execFileSync("git", ["log", "--oneline"], { cwd: dir });
    execFileSync("cat", [join(dir, "a.txt")]);
    expect(await detectWrites(dir, before, "reviewer")).toBeNull();
  });

  it.each([
    [
      "an edit with the old mtime put back",
      (d: string) => {
        writeFileSync(join(d, "a.txt"), "A\n");
        utimesSync(join(d, "a.txt"), new Date(0), new Date(0));
      },
      "a.txt",
    ],
    ["a new untracked file", (d: string) => writeFileSync(join(d, "new.txt"), "x"), "new.txt"],
    ["a removed file", (d: string) => rmSync(join(d, "src/b.ts")), "src/b.ts"],
    ["a chmod", (d: string) => chmodSync(join(d, "a.txt"), 0o755), "a.txt"],
    ["a rename", (d: string) => renameSync(join(d, "a.txt"), join(d, "c.txt")), "a.txt"],
    ["a link", (d: string) => symlinkSync("/etc/passwd", join(d, "l")), "l"],
    [
      "a moved HEAD",
      (d: string) => writeFileSync(join(d, ".git/HEAD"), "ref: refs/heads/x\n"),
      ".git/HEAD",
    ],
    ["a FIFO (never opened)", (d: string) => execFileSync("mkfifo", [join(d, "fifo")]), "fifo"],
  ])("sees %s", async (_label, change, path) => {
    const dir = workspace();
    const before = await manifestOf(dir);
    await new Promise((r) => setTimeout(r, 5));
    change(dir);
    const wrote = await detectWrites(dir, before, "reviewer");
    expect(wrote?.event.data.files).toContain(path);
    expect(wrote?.reason).toContain("step reviewer wrote to the tree");
  });

  it("names a new file, not only the directory it appeared in", async () => {
    const dir = workspace();
    const before = await manifestOf(dir);
    mkdirSync(join(dir, "src/deep"));
    writeFileSync(join(dir, "src/deep/x.ts"), "x");
    expect(changedPaths(before, await manifestOf(dir))).toContain("src/deep/x.ts");
    const wrote = await detectWrites(dir, before, "architect");
    expect(wrote?.event.data.files).toEqual(["src/deep/x.ts"]);
  });
});
