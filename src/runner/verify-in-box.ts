// R2.6, the runner's half: after the builder's agent exits, `scripts/verify.sh` as it is in the
// base commit runs again — in a box, like the controls. Never on the host: verify.sh runs the
// project's tests, which are the builder's code by now, and the runner's own environment holds
// the push credential (and, in the App, the App's private key).
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execInBox, tail } from "../boxes/box-exec.js";
import type { Box } from "../boxes/types.js";
import type { VerifyFromBaseResult } from "../guard/stop-verify.js";
import { readVerifyScriptFromBase } from "../guard/stop-verify.js";

export interface VerifyInBox {
  /** Where the script runs: the controls' checkout of the builder's work. */
  workspace: string;
  /** The runner's own repository the base's script is read from (never the workspace). */
  repo: string;
  baseSha: string;
  /** A runner-owned directory for the script's copy, outside the workspace and the HOME. */
  scriptDir: string;
  /** The box to run in; it must bind `scriptDir` read-only. */
  box: (scriptDir: string) => Box;
  env: Record<string, string>;
  timeoutMs: number;
}

export async function verifyFromBaseInBox(v: VerifyInBox): Promise<VerifyFromBaseResult> {
  const { baseSha, script } = await readVerifyScriptFromBase({
    repoDir: v.repo,
    baseRef: v.baseSha,
  });
  if (script === null) {
    return { present: false, ok: true, exitCode: null, timedOut: false, output: "", baseSha };
  }
  // The copy lives where the builder never could write (the box sees it read-only), so the
  // script that runs is the base commit's, byte for byte.
  await rm(v.scriptDir, { recursive: true, force: true });
  // Readable by the box's user, writable by nobody in the box (it is bound read-only).
  await mkdir(v.scriptDir, { recursive: true, mode: 0o755 });
  const file = join(v.scriptDir, "verify.sh");
  await writeFile(file, script, { mode: 0o444 });
  try {
    const r = await execInBox(
      v.box(v.scriptDir),
      { command: "bash", args: [file], cwd: v.workspace, env: v.env },
      { timeoutMs: v.timeoutMs },
    );
    const output = tail(`${r.stdout}\n${r.stderr}`, 64 * 1024);
    return {
      present: true,
      baseSha,
      ok: r.code === 0 && !r.timedOut && r.spawnError === undefined,
      exitCode: r.timedOut ? null : r.code,
      timedOut: r.timedOut,
      output,
      ...(r.signal && !r.timedOut ? { signal: r.signal } : {}),
      ...(r.spawnError !== undefined ? { startError: r.spawnError } : {}),
    };
  } finally {
    await rm(v.scriptDir, { recursive: true, force: true });
  }
}
