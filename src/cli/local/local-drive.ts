// Driving one run in this process until it stops — for `forge run` right after it started the
// run, and for `forge resume` — with live progress, Ctrl-C, a cancel from another terminal,
// and the final report.
import type { RunEvent, RunRecord, StepRecord } from "../../chain/types.js";
import { whileHandlingSignals } from "../interrupt.js";
import type { ProgressView } from "./progress.js";
import { finalReport } from "./run-report.js";
import { runUsage } from "./run-usage.js";
import type { LocalStack } from "./stack.js";

export interface LocalRunResult {
  exitCode: number;
  run: RunRecord | null;
  steps: StepRecord[];
  runOutputPath: string | null;
  events: RunEvent[];
}

export interface DriveLocalInput {
  stack: LocalStack;
  view: ProgressView;
  runId: string;
  out: { write(s: string): unknown };
  json: boolean;
  /** How often the journal is read for a cancel journaled by another process. */
  cancelPollMs?: number;
}

export async function driveLocal(d: DriveLocalInput): Promise<LocalRunResult> {
  const { stack, view, runId } = d;
  const onSigint = (_signal: string, count: number) => {
    if (count > 1) return view.note("still cancelling…");
    view.note("cancelling (Ctrl-C)…");
    void stack.engine.cancel(runId, "cancelled by Ctrl-C on the terminal");
  };
  // `forge cancel` in another terminal journals the cancel; this process then ends its step.
  const poll = setInterval(() => {
    void stack.store.getRun(runId).then((r) => {
      if (r?.state !== "cancelled") return;
      clearInterval(poll);
      return stack.engine.cancel(runId, "cancelled from another process");
    });
  }, d.cancelPollMs ?? 1000);
  poll.unref();
  let final: RunRecord;
  try {
    final = await whileHandlingSignals(["SIGINT"], onSigint, () => stack.engine.drive(runId));
  } finally {
    clearInterval(poll);
    view.stop();
  }
  const status = await stack.engine.status(runId, { eventLimit: 200 });
  const events = await stack.store.events(runId);
  const finished = [...events].reverse().find((e) => e.type === "run.finished");
  const runOutputPath = (finished?.data.runOutputPath as string | null | undefined) ?? null;
  if (d.json) {
    const usage = runUsage(events);
    d.out.write(
      `${JSON.stringify(
        {
          run: final.id,
          state: final.state,
          verdicts: status.steps.map((s) => ({
            role: s.role,
            state: s.state,
            decision: s.decision,
            usage: usage.steps.get(s.index)?.usage ?? null,
          })),
          usage: usage.total,
          runOutputPath,
          branch: final.branch,
          pendingRequests: status.pendingRequests,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    d.out.write(
      await finalReport({
        run: final,
        steps: status.steps,
        events,
        pending: status.pendingRequests,
        runOutputPath,
      }),
    );
  }
  return {
    exitCode: final.state === "passed" ? 0 : 1,
    run: final,
    steps: status.steps,
    runOutputPath,
    events,
  };
}
