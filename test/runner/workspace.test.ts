import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitPending, diffFromBase } from "../../src/runner/diff.js";
import { branchName, prepareWorkspace, remoteDefaultBranch } from "../../src/runner/workspace.js";
import { gitIn, makeRepo, tempDir, writeFiles } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe("branchName", () => {
  it.each([
    ["Add a README", 12, "forge/12-add-a-readme"],
    ["$(rm -rf /); `id`", 3, "forge/3-rm-rf-id"],
    ["   ", 7, "forge/7-change"],
    ["Ünïcödé  title!!", 1, "forge/1-unicode-title"],
  ])("%s → %s", (title, n, expected) => {
    expect(branchName(title, n, "abcdef0123")).toBe(expected);
  });
  it("uses a local prefix without an issue number and caps the slug", () => {
    const b = branchName("x".repeat(200), undefined, "abcdef0123456789");
    expect(b.startsWith("forge/local-abcdef01-")).toBe(true);
    expect(b.length).toBeLessThanOrEqual("forge/local-abcdef01-".length + 40);
  });
});

describe("prepareWorkspace", () => {
  it("clones at the measured base on the run branch, reuses the clone on resume", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const remote = join(t.dir, "remote");
    const base = makeRepo(remote, { "README.md": "hi\n" });
    expect(await remoteDefaultBranch(remote, t.dir)).toBe("main");
    const dir = join(t.dir, "work", "run1");
    const ws = await prepareWorkspace({ remote, baseRef: "main", dir, branch: "forge/1-x" });
    expect(ws.baseSha).toBe(base);
    expect(gitIn(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("forge/1-x");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("hi\n");
    // the remote moves on; a resumed run keeps its measured base
    writeFiles(remote, { "later.txt": "x" });
    gitIn(remote, "add", "-A");
    gitIn(remote, "commit", "-q", "-m", "later");
    const again = await prepareWorkspace({
      remote,
      baseRef: "main",
      dir,
      branch: "forge/1-x",
      knownBaseSha: base,
    });
    expect(again.baseSha).toBe(base);
    expect(existsSync(join(dir, "later.txt"))).toBe(false);
  });

  it("refuses a base ref that does not exist", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const remote = join(t.dir, "remote");
    makeRepo(remote, { "a.txt": "a" });
    await expect(
      prepareWorkspace({ remote, baseRef: "nope", dir: join(t.dir, "w"), branch: "forge/1-x" }),
    ).rejects.toThrow(/base ref "nope" does not exist/);
  });

  it("does not run the repository's git hooks", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const remote = join(t.dir, "remote");
    makeRepo(remote, { "a.txt": "a" });
    const dir = join(t.dir, "w");
    await prepareWorkspace({ remote, baseRef: "main", dir, branch: "forge/1-x" });
    const marker = join(t.dir, "hook-ran");
    writeFiles(dir, { ".git/hooks/pre-commit": `#!/bin/sh\ntouch ${marker}\n`, "b.txt": "b" });
    gitIn(dir, "config", "core.hooksPath", ".git/hooks"); // even when the repo asks for hooks
    const { chmodSync } = await import("node:fs");
    chmodSync(join(dir, ".git/hooks/pre-commit"), 0o755);
    expect(await commitPending(dir, "builder work")).toBe(true);
    expect(existsSync(marker)).toBe(false);
    const facts = await diffFromBase(dir, gitIn(dir, "rev-parse", "HEAD~1"));
    expect(facts.files).toEqual(["b.txt"]);
    expect(facts.stat).toMatch(/b\.txt/);
    expect(await commitPending(dir, "nothing")).toBe(false);
  });
});

describe("prepareWorkspace for a review chain", () => {
  it("checks out the head and measures the base as the merge base", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const remote = join(t.dir, "remote");
    const base = makeRepo(remote, { "a.txt": "a\n" });
    gitIn(remote, "checkout", "-q", "-b", "feature");
    writeFiles(remote, { "a.txt": "changed\n" });
    gitIn(remote, "commit", "-q", "-am", "feature work");
    const head = gitIn(remote, "rev-parse", "HEAD");
    gitIn(remote, "checkout", "-q", "main");
    writeFiles(remote, { "main-only.txt": "m" });
    gitIn(remote, "add", "-A");
    gitIn(remote, "commit", "-q", "-m", "main moves on");
    const dir = join(t.dir, "w");
    const ws = await prepareWorkspace({
      remote,
      baseRef: "main",
      headRef: "feature",
      dir,
      branch: "forge/review-x",
    });
    expect(ws.baseSha).toBe(base);
    expect(gitIn(dir, "rev-parse", "HEAD")).toBe(head);
    const facts = await diffFromBase(dir, ws.baseSha);
    expect(facts.files).toEqual(["a.txt"]);
  });
});
