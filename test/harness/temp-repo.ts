/**
 * Throw-away git repositories for tests. Never depends on the global git config: identity
 * comes from the environment, hooks are off (core.hooksPath=/dev/null, as for agents: R2.5).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: "Forge Test",
  GIT_AUTHOR_EMAIL: "forge-test@example.invalid",
  GIT_COMMITTER_NAME: "Forge Test",
  GIT_COMMITTER_EMAIL: "forge-test@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "core.hooksPath",
  GIT_CONFIG_VALUE_0: "/dev/null",
  GIT_CONFIG_KEY_1: "init.defaultBranch",
  GIT_CONFIG_VALUE_1: "main",
};

export interface TempRepoSpec {
  /** path → content, committed in the first commit. */
  files?: Record<string, string>;
  /** path → content, written after the commit (left untracked, like a developer's .env). */
  untracked?: Record<string, string>;
  /** link path → target (as given to symlink(2)), created after the commit, untracked. */
  symlinks?: Record<string, string>;
  /** file modes to set before the commit, e.g. { "scripts/verify.sh": 0o755 }. */
  modes?: Record<string, number>;
}

export interface TempRepo {
  dir: string;
  /** The first commit's sha. */
  base: string;
  git(...args: string[]): string;
  cleanup(): void;
}

export function createTempRepo(spec: TempRepoSpec = {}): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), "forge-repo-"));
  const git = (...args: string[]): string =>
    execFileSync("git", args, {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
  const write = (rel: string, content: string) => {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  };
  git("init", "-q");
  for (const [rel, content] of Object.entries(spec.files ?? { "README.md": "# sample\n" })) {
    write(rel, content);
  }
  for (const [rel, mode] of Object.entries(spec.modes ?? {})) {
    execFileSync("chmod", [mode.toString(8), join(dir, rel)]);
  }
  git("add", "-A");
  git("commit", "-qm", "initial");
  const base = git("rev-parse", "HEAD");
  for (const [rel, content] of Object.entries(spec.untracked ?? {})) write(rel, content);
  for (const [rel, target] of Object.entries(spec.symlinks ?? {})) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    symlinkSync(target, abs);
  }
  return {
    dir,
    base,
    git,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
