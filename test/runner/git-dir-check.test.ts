import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitDirProblem } from "../../src/runner/git-dir-check.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(): string {
  const t = tempDir("forge-git-dir-");
  cleanups.push(t.cleanup);
  makeRepo(t.dir, { "a.txt": "a\n" });
  return t.dir;
}

function outsideFile(): string {
  const t = tempDir("forge-git-dir-outside-");
  cleanups.push(t.cleanup);
  const file = join(t.dir, "victim");
  writeFileSync(file, "untouched\n");
  return file;
}

describe("gitDirProblem", () => {
  it("is null for a repository as git made it", async () => {
    expect(await gitDirProblem(repo())).toBeNull();
  });

  it.each([
    ["COMMIT_EDITMSG", "a commit's message"],
    ["logs/HEAD", "the reflog git appends to"],
    ["refs/heads/side", "a ref"],
  ])("refuses a link at .git/%s (%s)", async (path, _what) => {
    const dir = repo();
    const target = join(dir, ".git", path);
    rmSync(target, { force: true });
    mkdirSync(join(target, ".."), { recursive: true });
    symlinkSync(outsideFile(), target);
    expect(await gitDirProblem(dir)).toContain(`.git/${path} in .git is a link or a special file`);
  });

  it("refuses a FIFO in .git (a write to it would hang the runner)", async () => {
    const dir = repo();
    execFileSync("mkfifo", [join(dir, ".git", "COMMIT_EDITMSG.fifo")]);
    expect(await gitDirProblem(dir)).toContain(".git/COMMIT_EDITMSG.fifo");
  });

  it("refuses a .git that is a file or a link (it would name another repository)", async () => {
    const dir = repo();
    const other = repo();
    rmSync(join(dir, ".git"), { recursive: true });
    writeFileSync(join(dir, ".git"), `gitdir: ${join(other, ".git")}\n`);
    expect(await gitDirProblem(dir)).toContain(".git is not a directory");
    rmSync(join(dir, ".git"));
    symlinkSync(join(other, ".git"), join(dir, ".git"));
    expect(await gitDirProblem(dir)).toContain(".git is not a directory");
  });

  it.each(["alternates", "http-alternates"])("refuses objects/info/%s", async (name) => {
    const dir = repo();
    writeFileSync(join(dir, ".git", "objects", "info", name), "/elsewhere/objects\n");
    expect(await gitDirProblem(dir)).toContain(
      `borrows git objects from elsewhere (.git/objects/info/${name})`,
    );
  });
});
