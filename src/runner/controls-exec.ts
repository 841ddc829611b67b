// Runs the project's `setup:` commands and `validate:` controls in the box (R8.1, R8.3): after
// the builder and before the reviewer. Results feed the reviewer's prompt and the report.
import { join } from "node:path";
import { execInBox, tail } from "../boxes/box-exec.js";
import type { Box } from "../boxes/types.js";
import {
  type ControlResult,
  type ControlToRun,
  controlInvocation,
  isKnownBuiltin,
} from "../policy/index.js";
import { scanCommittedTree } from "./tree-scan.js";

export interface ControlRun extends ControlResult {
  name: string;
  output: string;
}

export interface ExecContext {
  box: Box;
  workspace: string;
  env: Record<string, string>;
  /** argv that starts forge inside the box (for built-in controls). */
  forge: readonly string[];
  timeoutMs: number;
}

export async function runControls(
  controls: readonly ControlToRun[],
  ctx: ExecContext,
): Promise<ControlRun[]> {
  const out: ControlRun[] = [];
  for (const control of controls) {
    const inv = controlInvocation(control.run, ctx.forge);
    const [command, ...args] =
      inv.kind === "shell" ? ["/bin/sh", "-c", inv.command] : (inv.argv as [string, ...string[]]);
    const r = await execInBox(
      ctx.box,
      { command, args, cwd: join(ctx.workspace, control.cwd), env: ctx.env },
      { timeoutMs: ctx.timeoutMs },
    );
    const result: ControlRun = {
      id: control.id,
      name: control.id,
      advisory: control.advisory,
      exitCode: r.code,
      output: tail(`${r.stdout}\n${r.stderr}`, 8000),
    };
    if (r.spawnError) result.spawnError = r.spawnError;
    if (r.signal) result.signal = r.signal;
    if (r.timedOut) result.timedOut = true;
    out.push(result);
  }
  return out;
}

/**
 * The built-in controls, run by the runner itself on the committed work (the builder's work
 * re-applied onto the real base, in the runner's own repository): `forge:secret-scan` reads
 * git objects (tree-scan.ts), so it needs no box and follows nothing on disk.
 * An unknown built-in cannot get here (the config schema refuses it); it fails, never passes.
 */
export async function runBuiltinControls(
  controls: readonly ControlToRun[],
  work: { repo: string; commit: string },
): Promise<ControlRun[]> {
  return Promise.all(
    controls.map(async (control): Promise<ControlRun> => {
      const base = { id: control.id, name: control.id, advisory: control.advisory };
      if (!isKnownBuiltin(control.run)) {
        return { ...base, exitCode: 2, output: `unknown built-in control ${control.run}` };
      }
      try {
        const r = await scanCommittedTree(work.repo, {
          commit: work.commit,
          subdir: control.cwd,
        });
        return { ...base, exitCode: r.exitCode, output: tail(r.output, 8000) };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ...base, exitCode: 2, output: `forge:secret-scan: ${message}` };
      }
    }),
  );
}

export async function runSetup(
  commands: ReadonlyArray<{ command: string; cwd: string }>,
  ctx: ExecContext,
): Promise<{ ok: boolean; output: string; failed?: string }> {
  let output = "";
  for (const c of commands) {
    const r = await execInBox(
      ctx.box,
      {
        command: "/bin/sh",
        args: ["-c", c.command],
        cwd: join(ctx.workspace, c.cwd),
        env: ctx.env,
      },
      { timeoutMs: ctx.timeoutMs },
    );
    output += `$ ${c.command}\n${tail(`${r.stdout}\n${r.stderr}`, 4000)}\n`;
    if (r.code !== 0) return { ok: false, output, failed: c.command };
  }
  return { ok: true, output };
}
