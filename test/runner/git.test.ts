// The runner's git (src/runner/git.ts) on a workspace whose config names commands: it runs none
// of them, even in a box kind that does not keep .git/config read-only (worktree).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../../src/runner/git.js";
import { gitIn, makeRepo, tempDir } from "../helpers/git-repo.js";

let t: { dir: string; cleanup: () => void };
beforeEach(() => {
  t = tempDir("forge-git-");
  makeRepo(t.dir, { "a.txt": "a\n" });
});
afterEach(() => t.cleanup());

describe("the runner's git", () => {
  it("never runs the workspace's core.fsmonitor or its hooks", async () => {
    const ran = join(t.dir, ".git", "command-ran");
    gitIn(t.dir, "config", "core.fsmonitor", `touch '${ran}'`);
    const hook = join(t.dir, ".git", "hooks", "post-commit");
    writeFileSync(hook, `#!/bin/sh\ntouch '${ran}'\n`, { mode: 0o755 });
    writeFileSync(join(t.dir, "b.txt"), "b\n");
    await git(["status", "--porcelain"], { cwd: t.dir });
    await git(["add", "-A"], { cwd: t.dir });
    await git(["commit", "-qm", "work"], { cwd: t.dir });
    expect(existsSync(ran)).toBe(false);
    // The same calls through plain git do run it: the test would see a regression.
    gitIn(t.dir, "-c", "core.hooksPath=.git/hooks", "status", "--porcelain");
    expect(existsSync(ran)).toBe(true);
  });
});
