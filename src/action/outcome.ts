// How a job ends, for the workflow: the step's exit code, the outputs and the job summary, read
// from the journal once the run stands still (passed, failed, paused) — or a refusal's.
import { GATE_EVENT } from "../app/reporter-verdicts.js";
import { PULL_EVENT } from "../app/run-context.js";
import type { RunRecord } from "../chain/types.js";
import type { ActionInputs, ActionRuntime } from "./inputs.js";
import type { ActionOutputs, ActionVerdict, SummaryInput } from "./workflow-io.js";

export interface ActionResult {
  exitCode: number;
  outputs: ActionOutputs;
  summary: SummaryInput | null;
}

export function result(
  exitCode: number,
  verdict: ActionVerdict,
  summary: SummaryInput | null,
): ActionResult {
  return {
    exitCode,
    outputs: { run_id: "", verdict, branch: "", pull_request: "", gate: "" },
    summary,
  };
}

export async function outcome(
  run: RunRecord,
  store: {
    events(id: string): Promise<Array<{ type: string; data: Record<string, unknown> }>>;
    getSteps(
      id: string,
    ): Promise<Array<{ role: string; state: string; decision?: { reasons: string[] } | null }>>;
  },
  runtime: ActionRuntime,
  inputs: ActionInputs,
  number: number,
): Promise<ActionResult> {
  const events = await store.events(run.id);
  const gate = [...events].reverse().find((e) => e.type === GATE_EVENT)?.data.conclusion;
  const pull = [...events].reverse().find((e) => e.type === PULL_EVENT)?.data;
  const verdict: ActionVerdict =
    run.state === "passed" ? "PASS" : run.state === "paused" ? "PAUSED" : "FAIL";
  const steps = await store.getSteps(run.id);
  const base = `${runtime.serverUrl}/${runtime.repository}`;
  const summary: SummaryInput = {
    verdict,
    runId: run.id,
    subject: { number, url: `${base}/issues/${number}` },
    steps: steps.map((s) => ({
      role: s.role,
      verdict: s.state,
      ...(s.decision?.reasons.length
        ? { reason: s.decision.reasons.join("; ").slice(0, 300) }
        : {}),
    })),
    ...(typeof gate === "string" ? { gate } : {}),
    ...(run.branch ? { branch: run.branch } : {}),
    ...(typeof pull?.number === "number"
      ? { pullRequest: { number: pull.number, url: `${base}/pull/${pull.number}` } }
      : {}),
    ...(verdict === "PAUSED"
      ? {
          next: inputs.gateSecret
            ? "answer on the issue with /forge respond <request> <answer>, then /forge resume"
            : "give the action a gate_secret (answers are sealed with it), then answer on the issue with /forge respond <request> <answer> and /forge resume",
        }
      : {}),
  };
  return {
    exitCode: verdict === "FAIL" ? 1 : 0,
    outputs: {
      run_id: run.id,
      verdict,
      branch: run.branch ?? "",
      pull_request: typeof pull?.number === "number" ? String(pull.number) : "",
      gate: typeof gate === "string" ? gate : "",
    },
    summary,
  };
}
