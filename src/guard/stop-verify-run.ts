import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readVerifyScriptFromBase } from "./stop-verify-git.js";

/** How much of the combined stdout/stderr we keep (the tail; the head is dropped). */
const OUTPUT_TAIL_BYTES = 64 * 1024;

/** After the script's main process exits, how long stragglers may keep the pipes open. */
const STRAGGLER_GRACE_MS = 2_000;

export type VerifyRun = {
  ok: boolean;
  /** The exit code of `bash`, or null when it was killed (timeout, signal) or never started. */
  exitCode: number | null;
  timedOut: boolean;
  /** Tail of stdout and stderr, interleaved as they arrived. */
  output: string;
  /** Set when bash died from a signal that was not our timeout kill. */
  signal?: string;
  /** Set when bash could not be started at all. */
  startError?: string;
};

export type VerifyFromBaseResult = {
  /** false when the base commit has no scripts/verify.sh (nothing to check). */
  present: boolean;
  ok: boolean;
  exitCode: number | null;
  timedOut: boolean;
  output: string;
  baseSha: string;
  signal?: string;
  startError?: string;
};

/** Keeps the last `limit` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) {
      const first = this.chunks.shift();
      this.size -= first?.length ?? 0;
    }
  }
  toString(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString("utf8");
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // Negative pid: the whole process group (the child is a group leader, see `detached`).
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Run a verify script with `bash <tmpfile>` in `cwd`. The script text is written to a private
 * temp dir (never into the repository, where the builder could swap it) and removed afterwards.
 * The child gets its own process group so a timeout kills everything it started, and
 * stragglers that outlive bash are killed too.
 *
 * Note for script authors: `$0` is the temp copy, not `<repo>/scripts/verify.sh`; the working
 * directory is the repository root, so paths relative to the cwd work.
 */
export async function runVerifyScript(options: {
  script: string;
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}): Promise<VerifyRun> {
  const dir = await mkdtemp(join(tmpdir(), "forge-verify-"));
  try {
    const file = join(dir, "verify.sh");
    await writeFile(file, options.script, { mode: 0o400 });
    return await spawnBash(file, options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function spawnBash(
  file: string,
  options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<VerifyRun> {
  return new Promise((resolve) => {
    const tail = new TailBuffer(OUTPUT_TAIL_BYTES);
    let timedOut = false;
    let startError: string | undefined;
    let settled = false;

    const child = spawn("bash", [file], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout.on("data", (chunk: Buffer) => tail.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => tail.push(chunk));

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    const onAbort = () => killGroup(child.pid);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    let graceTimer: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      // bash is gone; anything left in its group is a straggler holding our pipes.
      killGroup(child.pid);
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, STRAGGLER_GRACE_MS);
    });
    child.on("error", (error) => {
      startError = error.message;
      finish(null, null);
    });
    child.on("close", (code, signal) => finish(code, signal));

    function finish(code: number | null, signal: NodeJS.Signals | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      const result: VerifyRun = {
        ok: !timedOut && startError === undefined && code === 0,
        exitCode: timedOut ? null : code,
        timedOut,
        output: tail.toString(),
      };
      if (signal && !timedOut) result.signal = signal;
      if (startError !== undefined) result.startError = startError;
      resolve(result);
    }
  });
}

/**
 * R2.6: run `scripts/verify.sh` as it is in the base commit, in `repoDir`. The runner calls this
 * after the builder exits; `forge stop-verify` calls it from inside the builder's session.
 * Throws VerifyBaseError when the base cannot be read — callers must count that as a failure.
 */
export async function runVerifyFromBase(options: {
  repoDir: string;
  baseRef: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}): Promise<VerifyFromBaseResult> {
  const { baseSha, script } = await readVerifyScriptFromBase({
    repoDir: options.repoDir,
    baseRef: options.baseRef,
    env: options.env,
  });
  if (script === null) {
    return { present: false, ok: true, exitCode: null, timedOut: false, output: "", baseSha };
  }
  const run = await runVerifyScript({
    script,
    cwd: options.repoDir,
    timeoutMs: options.timeoutMs,
    env: options.env,
    signal: options.signal,
  });
  return { present: true, baseSha, ...run };
}
