import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Identity and hook settings for temp repos, independent of any global git config. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Forge Test",
  GIT_AUTHOR_EMAIL: "forge-test@example.invalid",
  GIT_COMMITTER_NAME: "Forge Test",
  GIT_COMMITTER_EMAIL: "forge-test@example.invalid",
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "core.hooksPath=/dev/null", "-C", dir, ...args], {
    env: GIT_ENV,
    encoding: "utf8",
  }).trim();
}

/** git with `input` on stdin. */
export function gitInput(dir: string, input: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "core.hooksPath=/dev/null", "-C", dir, ...args], {
    env: GIT_ENV,
    encoding: "utf8",
    input,
  }).trim();
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    if (path.endsWith(".sh")) chmodSync(full, 0o755);
  }
}

/** A temp repo with one commit holding `files`; returns its dir and the commit id. */
export function makeRepo(files: Record<string, string>): { dir: string; sha: string } {
  const dir = mkdtempSync(join(tmpdir(), "forge-sv-test-"));
  git(dir, "init", "-q", "-b", "main");
  writeFiles(dir, { "README.md": "test repo\n", ...files });
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "base");
  return { dir, sha: git(dir, "rev-parse", "HEAD") };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
