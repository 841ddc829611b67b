// What `forge run` / `forge resume` print when the run stops, and `forge status <run>` prints
// for one run: each phase with its verdict, cost and tokens, and for a failure the reasons and
// the failing command's output.
import type { StoredRequest } from "../../chain/ports.js";
import type { RunEvent, RunRecord, StepRecord } from "../../chain/types.js";
import {
  type DenialGroup,
  egressSummary,
  groupDenials,
  hostNetworkSentence,
} from "../../policy/index.js";
import { formatUsage } from "../../runner/step-usage.js";
import { clipWords } from "../../runner/tool-error.js";
import { type FailedOutput, setupFailure, stepFailure } from "./failure-detail.js";
import { runUsage } from "./run-usage.js";

export interface ReportInput {
  run: RunRecord;
  steps: StepRecord[];
  events: RunEvent[];
  pending: Array<Pick<StoredRequest, "id" | "question">>;
  runOutputPath?: string | null;
}

/** The end of a local run. */
export async function finalReport(r: ReportInput): Promise<string> {
  const lines = ["", `run ${r.run.id}: ${r.run.state.toUpperCase()}`];
  lines.push(...networkLines(r.events), ...(await phaseLines(r)));
  for (const w of r.events.filter((e) => e.type === "runner.step.wrote")) {
    lines.push(`  ! ${String(w.data.message)}`);
  }
  if (r.run.branch) lines.push(`branch: ${r.run.branch}`);
  if (r.runOutputPath) lines.push(`run output: ${r.runOutputPath}`);
  for (const p of r.pending) lines.push(`question ${p.id}: ${p.question}`);
  if (r.pending.length > 0) lines.push(`answer it, then resume (see \`forge status ${r.run.id}\`)`);
  lines.push("");
  return lines.join("\n");
}

/**
 * The network the run's boxes had (R4.6): the egress proxy with its refusals counted, or the
 * host network the deployment chose. Nothing for a run that journaled no mode.
 */
export function networkLines(events: readonly RunEvent[]): string[] {
  const { mode, denied } = egressSummary(events);
  if (!mode) return [];
  if (mode.mode === "host")
    return [`  ${"network".padEnd(10)} ${hostNetworkSentence(mode.reason)}`];
  const refused =
    denied.length === 0
      ? "nothing was refused"
      : `${denied.length} connection${denied.length === 1 ? "" : "s"} refused`;
  return [
    `  ${"network".padEnd(10)} egress proxy: each box reached only what its phase allows; ${refused}`,
  ];
}

/**
 * The setup phase and each step: verdict, attempts, cost, the connections its boxes were
 * refused; under a failed one its reasons and the failing commands' output; then the run's
 * total cost.
 */
export async function phaseLines(r: ReportInput): Promise<string[]> {
  const lines: string[] = [];
  const usage = runUsage(r.events);
  const refusals = groupDenials(egressSummary(r.events).denied);
  const setupRefused = refusals.filter((g) => g.index === undefined);
  const setup = [...r.events].reverse().find((e) => e.type === "run.setup.finished");
  if (setup) {
    const ok = setup.data.ok !== false;
    const secs = typeof setup.data.seconds === "number" ? ` ${setup.data.seconds} s` : "";
    lines.push(`  ${"setup".padEnd(10)} ${ok ? "ok" : "FAIL"}${secs}`);
    if (!ok) {
      const reasons = Array.isArray(setup.data.reasons) ? setup.data.reasons.map(String) : [];
      lines.push(...reasonLines(reasons.slice(0, 1)), ...outputLines(await setupFailure(r.events)));
    }
  } else if (setupRefused.length > 0) {
    lines.push(`  ${"setup".padEnd(10)} running`);
  }
  lines.push(...refusedLines(setupRefused));
  for (const s of r.steps) {
    const verdict = s.decision?.verdict ?? s.state;
    const own = usage.steps.get(s.index);
    const attempts = s.attempt > 1 ? ` (attempt ${s.attempt})` : "";
    const cost = own ? `  ${formatUsage(own.usage)}` : "";
    const overridden = s.decision?.overridden ? " (engine override)" : "";
    lines.push(`  ${s.role.padEnd(10)} ${verdict}${overridden}${attempts}${cost}`);
    lines.push(...refusedLines(refusals.filter((g) => g.index === s.index)));
    if (s.state === "failed" || s.decision?.verdict === "FAIL") {
      lines.push(...reasonLines(s.decision?.reasons ?? []));
      lines.push(...outputLines(await stepFailure(r.events, s)));
      if (usage.sources.some((u) => u.index === s.index)) {
        lines.push(`             transcript: forge logs ${r.run.id.slice(0, 12)} ${s.role}`);
      }
    }
  }
  if (usage.total) lines.push(`  ${"total".padEnd(10)} ${formatUsage(usage.total)}`);
  return lines;
}

/** The connections one phase or step was refused, the first few by host:port. */
function refusedLines(groups: readonly DenialGroup[]): string[] {
  const shown = groups.slice(0, 5).map((g) => {
    const times = g.count > 1 ? ` (${g.count} times)` : "";
    return `             refused ${g.target} in ${g.phase}: ${g.reasons.join("; ")}${times}`;
  });
  const more = groups.length - shown.length;
  return more > 0 ? [...shown, `             … and ${more} more refused host(s)`] : shown;
}

function reasonLines(reasons: readonly string[]): string[] {
  return reasons.slice(0, 6).map((x) => `             - ${clipWords(x, 400)}`);
}

function outputLines(outputs: readonly FailedOutput[]): string[] {
  const lines: string[] = [];
  for (const o of outputs) {
    lines.push(`             ${o.what}${o.tail ? ":" : ""}`);
    for (const l of o.tail.split("\n").filter((x) => x !== "")) lines.push(`               | ${l}`);
  }
  return lines;
}
