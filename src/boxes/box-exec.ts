import { spawnBoxed } from "./box-spawn.js";
import type { Box, BoxCommand } from "./types.js";

export interface BoxExecResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The process could not even be spawned (e.g. bwrap missing). */
  spawnError?: string;
}

/**
 * Run one command inside a box and collect its output. stdin is closed (claude -p waits 3 s
 * for stdin data otherwise), or carries `input` and then ends. On timeout the whole box is
 * SIGKILLed (box-spawn.ts).
 */
export function execInBox(
  box: Box,
  cmd: BoxCommand,
  opts: { timeoutMs?: number; maxOutput?: number; input?: string } = {},
): Promise<BoxExecResult> {
  const wrapped = box.wrap(cmd);
  const max = opts.maxOutput ?? 4_000_000;
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const boxed = spawnBoxed(wrapped, { stdin: opts.input !== undefined });
    const child = boxed.child;
    if (opts.input !== undefined) {
      child.stdin?.on("error", () => {});
      child.stdin?.end(opts.input);
    }
    const timer = setTimeout(() => {
      timedOut = true;
      boxed.kill();
    }, opts.timeoutMs ?? 120_000);
    child.stdout.on("data", (d: Buffer) => {
      if (stdout.length < max) stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < max) stderr += d.toString("utf8");
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr, timedOut, spawnError: error.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** The last `n` characters, for a check's detail. */
export function tail(text: string, n = 400): string {
  const t = text.trim();
  return t.length > n ? `…${t.slice(-n)}` : t;
}
