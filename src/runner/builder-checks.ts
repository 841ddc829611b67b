// What the runner does after the builder's agent exited and claimed PASS, in order: commit
// whatever the builder left uncommitted, run scripts/verify.sh from the base commit again in
// the builder's box (R2.6: the Stop hook in the box is only a convenience gate), then the
// `validate:` controls in the builder's box (R8.3). Every failure is a reason to FAIL.
import type { Box } from "../boxes/types.js";
import {
  controlsToRun,
  evaluateControls,
  formatControlLine,
  isBuiltinRun,
  type ResolvedConfig,
} from "../policy/index.js";
import { redactSecrets } from "../secrets/index.js";
import { runBuiltinControls, runControls } from "./controls-exec.js";
import { commitPending } from "./diff.js";
import { gitDirProblem } from "./git-dir-check.js";
import type { RunState } from "./run-state.js";
import { verifyFromBaseInBox } from "./verify-in-box.js";
import type { Workspace } from "./workspace.js";

export interface BuilderChecks {
  ws: Workspace;
  runId: string;
  config: ResolvedConfig | null;
  controlTimeoutMs?: number;
  /** The builder's box, binding `extraReadOnly` read-only as well (verify's script copy). */
  controlsBox: (extraReadOnly?: string[]) => Box;
  /** A runner-owned directory for verify's script copy (outside the workspace and HOME). */
  verifyDir: string;
  controlsEnv: Record<string, string>;
  /** How to start forge inside the box. */
  forge: string[];
  /** The run's state: the control results are kept in it for the reviewer and the report. */
  state: RunState;
  saveState: () => Promise<void>;
}

export async function checkBuilderWork(c: BuilderChecks): Promise<{
  events: Array<{ type: string; data: Record<string, unknown> }>;
  reasons: string[];
}> {
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const reasons: string[] = [];
  const { ws } = c;
  // The agent's box has ended: before the runner's git commits here, .git must be git's own.
  const unsafe = await gitDirProblem(ws.dir);
  if (unsafe) return { events, reasons: [unsafe] };
  // Commit first: the commit is the builder's work, not what verify leaves behind.
  const committed = await commitPending(ws.dir, `forge: builder changes for run ${c.runId}`);
  if (committed) events.push({ type: "builder.committed", data: { by: "runner" } });
  const toRun = c.config ? controlsToRun(c.config) : [];
  const ctx = {
    box: c.controlsBox(),
    workspace: ws.dir,
    env: c.controlsEnv,
    forge: c.forge,
    timeoutMs: c.controlTimeoutMs ?? 20 * 60_000,
  };
  // Built-in controls only read the committed tree (the secret scan, in the runner: no box,
  // tree-scan.ts): they run beside verify and the project's own controls, which run one after
  // the other as before.
  const early = runBuiltinControls(
    toRun.filter((x) => isBuiltinRun(x.run)),
    ws.dir,
  );
  const verify = await verifyFromBaseInBox({
    workspace: ws.dir,
    baseSha: ws.baseSha,
    scriptDir: c.verifyDir,
    box: (scriptDir) => c.controlsBox([scriptDir]),
    env: c.controlsEnv,
    timeoutMs: c.controlTimeoutMs ?? 10 * 60_000,
  }).catch((error: unknown) => ({
    present: true,
    ok: false,
    exitCode: null,
    timedOut: false,
    output: String(error),
    baseSha: ws.baseSha,
  }));
  if (verify.present) {
    events.push({
      type: "verify.finished",
      data: {
        ok: verify.ok,
        exitCode: verify.exitCode,
        timedOut: verify.timedOut,
        output: (await redactSecrets(verify.output.slice(-4000))).text,
      },
    });
    if (!verify.ok)
      reasons.push(
        `scripts/verify.sh (from base ${ws.baseSha.slice(0, 12)}) failed after the builder stopped`,
      );
  }
  if (reasons.length > 0) {
    await early; // the scan ends with the step, not after it
    return { events, reasons: await withGitDirCheck(ws.dir, reasons) };
  }
  if (c.config) {
    const late = await runControls(
      toRun.filter((x) => !isBuiltinRun(x.run)),
      ctx,
    );
    const done = [...(await early), ...late];
    // The configured order, for the report and the reviewer.
    const controls = toRun.flatMap((x) => done.filter((r) => r.id === x.id));
    const evaluation = evaluateControls(controls);
    c.state.controls = controls.map((r) => ({ ...r, output: r.output }));
    c.state.controlLines = evaluation.controls.map(formatControlLine);
    await c.saveState();
    events.push({
      type: "controls.finished",
      data: { passed: evaluation.passed, lines: c.state.controlLines, notices: evaluation.notices },
    });
    for (const b of evaluation.blocking) reasons.push(`control ${b.id}: ${b.detail}`);
  } else {
    await early;
  }
  // Again once every process of the step has ended: verify and the controls ran in the
  // builder's box, with write access to the workspace.
  return { events, reasons: await withGitDirCheck(ws.dir, reasons) };
}

async function withGitDirCheck(dir: string, reasons: string[]): Promise<string[]> {
  const unsafe = await gitDirProblem(dir);
  return unsafe ? [...reasons, unsafe] : reasons;
}
