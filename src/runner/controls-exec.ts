// Runs the project's `setup:` commands and `validate:` controls in the box (R8.1, R8.3): after
// the builder and before the reviewer. Results feed the reviewer's prompt and the report.
import { join } from "node:path";
import { execInBox, tail } from "../boxes/box-exec.js";
import type { Box } from "../boxes/types.js";
import { type ControlResult, type ControlToRun, controlInvocation } from "../policy/index.js";

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
