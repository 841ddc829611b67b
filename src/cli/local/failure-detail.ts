// Why a step (or the run's setup) failed, as the journal tells it: the output of the command
// that failed — setup, scripts/verify.sh, a control — as a tail, redacted again here (the
// runner redacted it before journaling; this process may know more of its own secrets).
import type { RunEvent, StepRecord } from "../../chain/types.js";
import { redactSecrets } from "../../secrets/index.js";

export interface FailedOutput {
  /** What ran, e.g. "setup: npm ci", "scripts/verify.sh (exit 1)". */
  what: string;
  /** Its last lines. */
  tail: string;
}

const TAIL_LINES = 25;
const TAIL_CHARS = 3000;

/** An event type as the runner names it, journaled with or without the "runner." prefix. */
const is = (e: RunEvent, type: string) => e.type === type || e.type === `runner.${type}`;

/** The events of one attempt of one step (the engine stamps index and attempt on them). */
export function attemptEvents(events: readonly RunEvent[], step: StepRecord): RunEvent[] {
  return events.filter(
    (e) => Number(e.data.index) === step.index && Number(e.data.attempt) === step.attempt,
  );
}

/** The failing commands' output of the step's last attempt. */
export async function stepFailure(
  events: readonly RunEvent[],
  step: StepRecord,
): Promise<FailedOutput[]> {
  return failedOutputs(attemptEvents(events, step));
}

/** The run's setup phase when it failed (its events carry no step). */
export async function setupFailure(events: readonly RunEvent[]): Promise<FailedOutput[]> {
  const finished = [...events].reverse().find((e) => e.type === "run.setup.finished");
  if (finished?.data.ok !== false) return [];
  return failedOutputs(events.filter((e) => e.data.index === undefined));
}

async function failedOutputs(events: readonly RunEvent[]): Promise<FailedOutput[]> {
  const out: FailedOutput[] = [];
  for (const e of events) {
    const d = e.data;
    if (is(e, "setup.finished") && d.ok === false) {
      out.push({
        what: `setup: ${String(d.failed ?? "a setup command")}`,
        tail: await tail(d.output),
      });
    } else if (is(e, "verify.finished") && d.ok === false) {
      const how = d.timedOut ? "timed out" : `exit ${String(d.exitCode ?? "none")}`;
      out.push({ what: `scripts/verify.sh (${how})`, tail: await tail(d.output) });
    } else if (is(e, "controls.finished") && d.passed === false) {
      out.push(...(await controlOutputs(d)));
    } else if (is(e, "step.wrote")) {
      out.push({ what: "write detection", tail: String(d.message ?? "") });
    } else if (e.type === "role_gate.violation") {
      out.push({ what: "role gate", tail: String(d.detail ?? "") });
    }
  }
  return out;
}

async function controlOutputs(d: Record<string, unknown>): Promise<FailedOutput[]> {
  const lines = Array.isArray(d.lines) ? d.lines.map(String) : [];
  const outputs = Array.isArray(d.outputs) ? (d.outputs as Array<Record<string, unknown>>) : [];
  const failed = lines.filter((l) => !l.startsWith("✅"));
  const result: FailedOutput[] = [];
  for (const line of failed) {
    const name = /^\S+\s+([^\s:]+)/.exec(line)?.[1] ?? "";
    const own = outputs.find((o) => String(o.name ?? o.id) === name);
    result.push({
      what: `control ${line.replace(/^\S+\s+/, "")}`,
      tail: await tail(own?.output ?? own?.tail),
    });
  }
  return result;
}

async function tail(text: unknown): Promise<string> {
  if (typeof text !== "string" || text.trim() === "") return "";
  const lines = text.trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
  return (await redactSecrets(lines.slice(-TAIL_CHARS))).text;
}
