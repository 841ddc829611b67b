import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { branchName, remoteDefaultBranch } from "../../src/runner/workspace.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

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

describe("remoteDefaultBranch", () => {
  it("reads what HEAD of the remote points at", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const remote = join(t.dir, "remote");
    makeRepo(remote, { "README.md": "hi\n" });
    expect(await remoteDefaultBranch(remote, t.dir)).toBe("main");
  });
});
