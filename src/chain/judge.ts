// R3.2–R3.3: the engine judges every step itself. A runner reports what the agent printed and
// what it measured — never a verdict: steps may run where the engine cannot trust them (a
// GitHub Actions job), and a runner that could say PASS could pass its own work. Only an explicit
// PASS in the role's schema-valid output, with nothing measured against it, passes; anything
// missing, malformed or contradictory is a FAIL — never a silent pass.
import type { Decision } from "../roles/decision.js";
import type { Role } from "../roles/role-names.js";
import { decideVerdict } from "../roles/verdict.js";
import { redactSecrets } from "../secrets/index.js";
import { FeedbackInvalidError } from "./errors.js";
import { QUESTION_DISPOSITIONS, readRequest, stepFeedback, validateFeedback } from "./feedback.js";
import { errorText } from "./step-events.js";
import type { Disposition, WorkerFeedback, WorkerRequest } from "./types.js";

export type Judgement =
  /** `output` is the role's structured output with every secret redacted (null when none). */
  | { kind: "pass"; decision: Decision; feedback: WorkerFeedback; output: unknown }
  /** `feedback` is set when it is well-typed, so it can be journaled. */
  | { kind: "fail"; decision: Decision; feedback: WorkerFeedback | null; output: unknown }
  | { kind: "question"; request: WorkerRequest; feedback: WorkerFeedback };

export function failDecision(role: Role, reasons: string[], overridden = false): Decision {
  return { role, verdict: "FAIL", reasons, overridden };
}

/** The parts of a runner's StepResult the verdict reads; anything else it sent is ignored. */
interface Measured {
  agentOutput: unknown;
  failures: string[];
  diff: string | undefined;
}

/** The step's decision, its redacted output and the feedback the engine journals for it. */
interface Assessed {
  decision: Decision;
  output: unknown;
  feedback: WorkerFeedback;
}

/**
 * Judges what a runner returned for `role`'s attempt. Fields a runner may add (a `decision`, a
 * `verdict`, `feedback`) are never read: the engine takes only the agent's raw output, the
 * runner's failure reasons and the diff. Never throws.
 */
export async function judgeStepResult(
  result: unknown,
  role: Role,
  attempt: number,
): Promise<Judgement> {
  const measured = readMeasured(result, role);
  if (typeof measured === "string") {
    return { kind: "fail", decision: failDecision(role, [measured]), feedback: null, output: null };
  }
  let assessed: Assessed;
  try {
    assessed = await assess(measured, role, attempt);
  } catch (err) {
    // The verdict could not be computed (its schemas did not load, …): that is no PASS.
    const why = `the step could not be judged: ${errorText(err)}`;
    return { kind: "fail", decision: failDecision(role, [why]), feedback: null, output: null };
  }
  return gate(assessed, role);
}

/** The runner's measurements, or why they are unusable (a FAIL). */
function readMeasured(result: unknown, role: Role): Measured | string {
  if (result === null || typeof result !== "object") return "the runner returned no result";
  const r = result as Record<string, unknown>;
  const { failures, diff, agentOutput } = r;
  if (!Array.isArray(failures) || failures.some((f) => typeof f !== "string")) {
    return "the runner returned no list of failure reasons";
  }
  if (diff !== undefined && typeof diff !== "string") {
    return "the runner returned a diff that is not text";
  }
  // Security FAILs on a secret in the diff: a result without the diff would skip that rule.
  if (role === "security" && agentOutput !== undefined && diff === undefined) {
    return "the runner returned no diff for the security step's secret scan";
  }
  return { agentOutput, failures: [...(failures as string[])], diff };
}

/**
 * The verdict rules on the agent's output (decideVerdict), then the runner's reasons: each one
 * FAILs the step, and overrides an agent that said PASS. A request with nothing measured
 * against it is a question for a human.
 */
async function assess(m: Measured, role: Role, attempt: number): Promise<Assessed> {
  // A runner's reason may quote a process's output; a remote runner may not have redacted it.
  const failures = await Promise.all(m.failures.map(async (f) => (await redactSecrets(f)).text));
  if (m.agentOutput === undefined) {
    // No agent ran: the runner failed the step before its start, and only its reasons explain it.
    const reasons = failures.length > 0 ? failures : ["the runner ran no agent and gave no reason"];
    return {
      decision: failDecision(role, reasons),
      output: null,
      feedback: stepFeedback(role, attempt, "failed", reasons.join("; ")),
    };
  }
  // The secret rule (R3.3) reads the real diff: files agents were not shown count too.
  const verdict = await decideVerdict(
    role,
    m.agentOutput,
    m.diff !== undefined ? { diff: m.diff } : {},
  );
  let decision = verdict.decision;
  if (failures.length > 0) {
    decision = {
      role,
      verdict: "FAIL",
      reasons: [...failures, ...decision.reasons],
      overridden: decision.verdict === "PASS",
    };
  }
  const request = readRequest(verdict.output);
  const disposition: Disposition =
    request && failures.length === 0
      ? "clarification"
      : decision.verdict === "PASS"
        ? "completed"
        : "failed";
  const summary = (verdict.output as { summary?: unknown } | null)?.summary;
  const text =
    typeof summary === "string"
      ? summary.slice(0, 2000)
      : decision.reasons.join("; ").slice(0, 2000);
  return {
    decision,
    output: verdict.output,
    feedback: stepFeedback(role, attempt, disposition, text, request ?? undefined),
  };
}

/**
 * Fail-closed: the feedback must be well-typed (its request is the agent's text), and only a
 * completed PASS passes.
 */
function gate(a: Assessed, role: Role): Judgement {
  const { decision, output } = a;
  let feedback: WorkerFeedback;
  try {
    feedback = validateFeedback(a.feedback);
  } catch (err) {
    const why = err instanceof FeedbackInvalidError ? err.problems.join("; ") : String(err);
    const reasons = [`worker feedback rejected: ${why}`];
    return { kind: "fail", decision: failDecision(role, reasons), feedback: null, output };
  }
  if (QUESTION_DISPOSITIONS.has(feedback.disposition) && feedback.request) {
    return { kind: "question", request: feedback.request, feedback };
  }
  if (feedback.disposition !== "completed") {
    const why = `the worker reported disposition ${feedback.disposition}`;
    const overridden = decision.overridden || decision.verdict === "PASS";
    const failed = failDecision(role, [...decision.reasons, why], overridden);
    return { kind: "fail", decision: failed, feedback, output };
  }
  if (decision.verdict === "PASS") return { kind: "pass", decision, feedback, output };
  return { kind: "fail", decision, feedback, output };
}
