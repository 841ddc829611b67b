// A boxed command whose stdout is bytes (a git bundle): written to a file the runner creates
// itself — never a path the box chose — and capped, so a box cannot fill the disk.
import { createWriteStream } from "node:fs";
import { spawnBoxed } from "../boxes/box-spawn.js";
import type { Box, BoxCommand } from "../boxes/types.js";

export interface BoxedToFileResult {
  code: number | null;
  stderr: string;
  bytes: number;
  timedOut: boolean;
  overLimit: boolean;
  spawnError?: string;
}

export function execInBoxToFile(
  box: Box,
  cmd: BoxCommand,
  file: string,
  opts: { timeoutMs: number; maxBytes: number },
): Promise<BoxedToFileResult> {
  const out = createWriteStream(file, { flags: "wx", mode: 0o600 });
  return new Promise((resolve) => {
    let stderr = "";
    let bytes = 0;
    let timedOut = false;
    let overLimit = false;
    let spawnError: string | undefined;
    const boxed = spawnBoxed(box.wrap(cmd));
    const child = boxed.child;
    const timer = setTimeout(() => {
      timedOut = true;
      boxed.kill();
    }, opts.timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      bytes += d.length;
      if (bytes > opts.maxBytes) {
        if (!overLimit) boxed.kill();
        overLimit = true;
        return;
      }
      out.write(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += d.toString("utf8");
    });
    let done = false;
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      out.end(() =>
        resolve({
          code,
          stderr,
          bytes,
          timedOut,
          overLimit,
          ...(spawnError ? { spawnError } : {}),
        }),
      );
    };
    child.on("error", (error) => {
      spawnError = error.message;
      finish(null);
    });
    child.on("close", (code) => finish(spawnError ? null : code));
  });
}
