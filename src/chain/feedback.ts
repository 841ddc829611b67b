// R6.1: worker feedback is typed data. The engine builds it for every step it judges (its
// request is the agent's text), and this is the one validator; the journal runs it inside its
// write transaction and the engine before it acts, so untyped feedback never pauses a run.
import { isRole, type Role } from "../roles/role-names.js";
import { canonicalJson } from "./canonical-json.js";
import { FeedbackInvalidError } from "./errors.js";
import {
  type Disposition,
  MAX_ATTEMPTS,
  type WorkerFeedback,
  type WorkerRequest,
} from "./types.js";

export const DISPOSITIONS: readonly Disposition[] = [
  "completed",
  "failed",
  "blocked",
  "clarification",
];
/** Dispositions that carry exactly one request and pause the run. */
export const QUESTION_DISPOSITIONS: ReadonlySet<Disposition> = new Set([
  "blocked",
  "clarification",
]);

// Ids end up in `/forge respond {…}` commands and comments: a small charset keeps them inert.
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const MAX_TEXT = 20_000;
const MAX_EVIDENCE = 64;
const MAX_CHOICES = 20;
const FEEDBACK_KEYS = new Set([
  "id",
  "role",
  "task",
  "attempt",
  "disposition",
  "summary",
  "evidence",
  "request",
]);
const REQUEST_KEYS = new Set(["id", "kind", "question", "context", "choices"]);

export function isValidId(value: unknown): value is string {
  return typeof value === "string" && ID_RE.test(value);
}

/** Throws FeedbackInvalidError listing every problem; returns the feedback typed. */
export function validateFeedback(value: unknown): WorkerFeedback {
  const problems: string[] = [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new FeedbackInvalidError(["feedback must be an object"]);
  }
  const fb = value as Record<string, unknown>;
  for (const key of Object.keys(fb)) {
    if (!FEEDBACK_KEYS.has(key) && fb[key] !== undefined) problems.push(`unknown field ${key}`);
  }
  if (!isValidId(fb.id)) problems.push("id must match [A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
  if (!isRole(fb.role)) problems.push("role must be one of the chain roles");
  checkText(fb.task, "task", problems);
  const attempt = fb.attempt as number;
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPTS) {
    problems.push(`attempt must be an integer 1–${MAX_ATTEMPTS}`);
  }
  if (!DISPOSITIONS.includes(fb.disposition as Disposition)) {
    problems.push(`disposition must be one of ${DISPOSITIONS.join(", ")}`);
  }
  checkText(fb.summary, "summary", problems);
  checkEvidence(fb.evidence, problems);
  const asks = QUESTION_DISPOSITIONS.has(fb.disposition as Disposition);
  if (asks && fb.request === undefined) {
    problems.push(`a ${String(fb.disposition)} feedback must carry exactly one request`);
  }
  if (!asks && fb.request !== undefined) {
    problems.push(`a ${String(fb.disposition)} feedback must not carry a request`);
  }
  if (fb.request !== undefined) checkRequest(fb.request, problems);
  if (problems.length > 0) throw new FeedbackInvalidError(problems);
  return fb as unknown as WorkerFeedback;
}

/** The identity of a feedback for replay comparison: canonical JSON of its typed fields. */
export function feedbackIdentity(runId: string, feedback: WorkerFeedback): string {
  return canonicalJson({ runId, ...normalise(feedback) });
}

export function requestIdentity(request: WorkerRequest): string {
  return canonicalJson(normaliseRequest(request));
}

function normalise(fb: WorkerFeedback): Record<string, unknown> {
  return {
    id: fb.id,
    role: fb.role,
    task: fb.task,
    attempt: fb.attempt,
    disposition: fb.disposition,
    summary: fb.summary,
    evidence: [...fb.evidence],
    request: fb.request ? normaliseRequest(fb.request) : undefined,
  };
}

function normaliseRequest(r: WorkerRequest): Record<string, unknown> {
  return {
    id: r.id,
    kind: r.kind,
    question: r.question,
    context: r.context,
    choices: r.choices ? [...r.choices] : undefined,
  };
}

function checkText(value: unknown, name: string, problems: string[], allowEmpty = false): void {
  if (typeof value !== "string") problems.push(`${name} must be a string`);
  else if (!allowEmpty && value.trim() === "") problems.push(`${name} must not be empty`);
  else if (value.length > MAX_TEXT) problems.push(`${name} is longer than ${MAX_TEXT} characters`);
}

function checkEvidence(value: unknown, problems: string[]): void {
  if (!Array.isArray(value)) {
    problems.push("evidence must be an array of paths");
    return;
  }
  if (value.length > MAX_EVIDENCE) problems.push(`evidence holds more than ${MAX_EVIDENCE} paths`);
  for (const item of value) {
    // Evidence is "bounded public workspace paths": relative, inside the workspace.
    if (
      typeof item !== "string" ||
      item === "" ||
      item.length > 1024 ||
      item.includes("\0") ||
      item.startsWith("/") ||
      item.split(/[\\/]/).includes("..")
    ) {
      problems.push(`evidence path ${JSON.stringify(item)} must be relative inside the workspace`);
    }
  }
}

function checkRequest(value: unknown, problems: string[]): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problems.push("request must be an object");
    return;
  }
  const r = value as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!REQUEST_KEYS.has(key) && r[key] !== undefined)
      problems.push(`unknown request field ${key}`);
  }
  if (!isValidId(r.id)) problems.push("request.id must match [A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
  checkText(r.kind, "request.kind", problems);
  checkText(r.question, "request.question", problems);
  checkText(r.context, "request.context", problems, true);
  if (r.choices !== undefined) {
    if (
      !Array.isArray(r.choices) ||
      r.choices.length === 0 ||
      r.choices.length > MAX_CHOICES ||
      r.choices.some((c) => typeof c !== "string" || c.trim() === "" || c.length > 1000)
    ) {
      problems.push(`request.choices must be 1–${MAX_CHOICES} non-empty strings`);
    }
  }
}

/**
 * The feedback the engine journals for a step it judged: one per role and attempt (the id says
 * which), its request only when the step pauses on it.
 */
export function stepFeedback(
  role: Role,
  attempt: number,
  disposition: Disposition,
  summary: string,
  request?: WorkerRequest,
): WorkerFeedback {
  const fb: WorkerFeedback = {
    id: `${role}-attempt-${attempt}`,
    role,
    task: role,
    attempt,
    disposition,
    summary: summary || "(no summary)",
    evidence: [],
  };
  if (request && QUESTION_DISPOSITIONS.has(disposition)) fb.request = request;
  return fb;
}

/**
 * The request a role's (redacted) output states, or null when it states none in the expected
 * shape. Not validated here: validateFeedback refuses a malformed one, which fails the step.
 */
export function readRequest(output: unknown): WorkerRequest | null {
  if (!output || typeof output !== "object") return null;
  const r = (output as { request?: unknown }).request;
  if (!r || typeof r !== "object") return null;
  const { id, kind, question, context, choices } = r as Record<string, unknown>;
  if (
    typeof id !== "string" ||
    typeof kind !== "string" ||
    typeof question !== "string" ||
    typeof context !== "string"
  )
    return null;
  return {
    id,
    kind,
    question,
    context,
    ...(Array.isArray(choices) ? { choices: choices.map(String) } : {}),
  };
}
