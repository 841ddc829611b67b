// R3.2 fail-closed judgement of one step's result: only an explicit PASS from the step's own
// role, with completed, well-typed feedback for this very attempt, passes. Anything missing,
// malformed or contradictory is a FAIL — never a silent pass.
import type { Decision } from "../roles/decision.js";
import type { Role } from "../roles/role-names.js";
import { FeedbackInvalidError } from "./errors.js";
import { QUESTION_DISPOSITIONS, validateFeedback } from "./feedback.js";
import type { WorkerFeedback, WorkerRequest } from "./types.js";

export type Judgement =
  | { kind: "pass"; decision: Decision; feedback: WorkerFeedback }
  /** `feedback` is set when it is well-typed and belongs to this step, so it can be journaled. */
  | { kind: "fail"; decision: Decision; feedback: WorkerFeedback | null }
  | { kind: "question"; request: WorkerRequest; feedback: WorkerFeedback };

export function failDecision(role: Role, reasons: string[], overridden = false): Decision {
  return { role, verdict: "FAIL", reasons, overridden };
}

export function judgeStepResult(result: unknown, role: Role, attempt: number): Judgement {
  if (result === null || typeof result !== "object") {
    return {
      kind: "fail",
      decision: failDecision(role, ["the runner returned no result"]),
      feedback: null,
    };
  }
  const r = result as Record<string, unknown>;
  let feedback: WorkerFeedback;
  try {
    feedback = validateFeedback(r.feedback);
  } catch (err) {
    const why = err instanceof FeedbackInvalidError ? err.problems.join("; ") : String(err);
    return {
      kind: "fail",
      decision: failDecision(role, [`worker feedback rejected: ${why}`]),
      feedback: null,
    };
  }
  if (feedback.role !== role || feedback.attempt !== attempt) {
    const why = `feedback is for ${feedback.role} attempt ${feedback.attempt}, the step is ${role} attempt ${attempt}`;
    return { kind: "fail", decision: failDecision(role, [why]), feedback: null };
  }
  if (QUESTION_DISPOSITIONS.has(feedback.disposition) && feedback.request) {
    return { kind: "question", request: feedback.request, feedback };
  }
  const decision = readDecision(r.decision);
  if (!decision) {
    return {
      kind: "fail",
      decision: failDecision(role, ["the step returned no valid decision"]),
      feedback,
    };
  }
  if (decision.role !== role) {
    const why = `the decision is for role ${decision.role}, the step is ${role}`;
    return { kind: "fail", decision: failDecision(role, [why], true), feedback };
  }
  if (feedback.disposition !== "completed") {
    const why = `the worker reported disposition ${feedback.disposition}`;
    const overridden = decision.overridden || decision.verdict === "PASS";
    return {
      kind: "fail",
      decision: failDecision(role, [...decision.reasons, why], overridden),
      feedback,
    };
  }
  if (decision.verdict === "PASS") return { kind: "pass", decision, feedback };
  return { kind: "fail", decision, feedback };
}

function readDecision(value: unknown): Decision | null {
  if (value === null || typeof value !== "object") return null;
  const d = value as Record<string, unknown>;
  if (typeof d.role !== "string") return null;
  if (d.verdict !== "PASS" && d.verdict !== "FAIL") return null;
  if (!Array.isArray(d.reasons) || d.reasons.some((x) => typeof x !== "string")) return null;
  return {
    role: d.role as Role,
    verdict: d.verdict,
    reasons: [...(d.reasons as string[])],
    overridden: d.overridden === true,
  };
}
