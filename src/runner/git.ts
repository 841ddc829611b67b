// The runner's only way to call git. Every call runs with core.hooksPath=/dev/null (R2.5):
// a cloned repository's hooks are repository-controlled code and must never run in the
// runner's process, which holds the push credential. core.fsmonitor=false likewise: it names a
// command `git status` runs. (It runs only in the runner's own bare repositories, which no box
// can write; these stay as a second layer.) And --no-replace-objects: the
// builder can write `refs/replace/<id>` in its workspace, and with it every diff, `cat-file`
// and `ls-tree` the runner reads would show another object's content in place of the one that
// is committed and pushed — a harmless diff for the reviewer, security and the secret scan,
// while the pushed branch carries something else (shown with a planted token).
// It reads no system or global config either (R4.7): the runner's git runs only in the
// runner's own repositories (run-repos.ts), and nothing outside them may add a driver, a
// hook path or a URL rewrite to what it does.
import { execa } from "execa";

export class GitError extends Error {
  override readonly name = "GitError";
  constructor(
    message: string,
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  input?: string;
  /** Return a failed call instead of throwing. */
  allowFailure?: boolean;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Identity the runner commits with; never the user's global config. */
export const RUNNER_IDENTITY = {
  GIT_AUTHOR_NAME: "forgechain",
  GIT_AUTHOR_EMAIL: "forgechain@users.noreply.github.com",
  GIT_COMMITTER_NAME: "forgechain",
  GIT_COMMITTER_EMAIL: "forgechain@users.noreply.github.com",
};

export async function git(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  const result = await run(args, opts, "utf8");
  return {
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    exitCode: result.exitCode,
  };
}

/** git whose stdout is bytes (object contents): throws on failure like `git`. */
export async function gitBytes(args: readonly string[], opts: GitOptions): Promise<Buffer> {
  const result = await run(args, { ...opts, allowFailure: false }, "buffer");
  return Buffer.from(result.stdout as Uint8Array);
}

async function run(
  args: readonly string[],
  opts: GitOptions,
  encoding: "utf8" | "buffer",
): Promise<{ stdout: unknown; stderr: string; exitCode: number }> {
  const full = [
    "--no-replace-objects",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotePath=false",
    ...args,
  ];
  const result = await execa("git", full, {
    cwd: opts.cwd,
    env: {
      GIT_TERMINAL_PROMPT: "0",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      ...RUNNER_IDENTITY,
      ...opts.env,
    },
    input: opts.input,
    reject: false,
    stripFinalNewline: false,
    encoding: encoding === "buffer" ? "buffer" : "utf8",
    ...(encoding === "buffer" ? { maxBuffer: 256 * 1024 * 1024 } : {}),
  });
  const exitCode = result.exitCode ?? -1;
  const stderr =
    typeof result.stderr === "string" ? result.stderr : Buffer.from(result.stderr).toString("utf8");
  if (exitCode !== 0 && !opts.allowFailure) {
    throw new GitError(
      `git ${args[0] ?? ""} failed (exit ${exitCode}): ${stderr.trim()}`,
      args,
      stderr.trim(),
    );
  }
  return { stdout: result.stdout, stderr, exitCode };
}

export async function gitLine(args: readonly string[], opts: GitOptions): Promise<string> {
  return (await git(args, opts)).stdout.trim();
}

export async function revParse(ref: string, cwd: string): Promise<string> {
  return gitLine(["rev-parse", "--verify", `${ref}^{commit}`], { cwd });
}
