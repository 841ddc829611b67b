// R6.1/R6.2 writes of the journal: feedback with its one request, and human responses.
// These functions run inside a caller's transaction; they throw to abort it.
import type Database from "better-sqlite3";
import {
  FeedbackConflictError,
  RequestAlreadyAnsweredError,
  RequestBudgetExceededError,
  ResponseConflictError,
  UnknownRequestError,
  UnknownRunError,
} from "../chain/errors.js";
import { feedbackIdentity, requestIdentity, validateFeedback } from "../chain/feedback.js";
import type { HumanResponse, WorkerFeedback } from "../chain/types.js";
import { toJson } from "./rows.js";

export type NewEvent = { type: string; data: Record<string, unknown> };

export interface FeedbackOutcome {
  result: "inserted" | "duplicate";
  events: NewEvent[];
}

/** Insert `feedback` (validated) and its request; returns the events that explain it. */
export function insertFeedback(
  db: Database.Database,
  runId: string,
  input: WorkerFeedback,
  now: string,
): FeedbackOutcome {
  const feedback = validateFeedback(input);
  const run = db.prepare("SELECT request_budget FROM runs WHERE id = ?").get(runId) as
    | { request_budget: number }
    | undefined;
  if (!run) throw new UnknownRunError(runId);
  const identity = feedbackIdentity(runId, feedback);
  const existing = db
    .prepare("SELECT canonical_json FROM feedback WHERE run_id = ? AND id = ?")
    .get(runId, feedback.id) as { canonical_json: string } | undefined;
  if (existing) {
    if (existing.canonical_json === identity) return { result: "duplicate", events: [] };
    throw new FeedbackConflictError(runId, feedback.id, "same id, different content");
  }
  const request = feedback.request;
  if (request) {
    const other = db
      .prepare("SELECT feedback_id FROM requests WHERE run_id = ? AND id = ?")
      .get(runId, request.id) as { feedback_id: string } | undefined;
    if (other) {
      throw new FeedbackConflictError(
        runId,
        feedback.id,
        `request id ${request.id} already belongs to feedback ${other.feedback_id}`,
      );
    }
    // Only NEW questions count against the frozen budget (a replay returned above).
    const asked = (
      db.prepare("SELECT count(*) AS n FROM requests WHERE run_id = ?").get(runId) as { n: number }
    ).n;
    if (asked >= run.request_budget)
      throw new RequestBudgetExceededError(runId, run.request_budget);
  }
  db.prepare(
    `INSERT INTO feedback (run_id, id, role, attempt, disposition, canonical_json, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(runId, feedback.id, feedback.role, feedback.attempt, feedback.disposition, identity, now);
  const events: NewEvent[] = [
    {
      type: "feedback.recorded",
      data: {
        feedbackId: feedback.id,
        role: feedback.role,
        task: feedback.task,
        attempt: feedback.attempt,
        disposition: feedback.disposition,
        summary: feedback.summary,
        evidence: feedback.evidence,
        ...(request ? { requestId: request.id } : {}),
      },
    },
  ];
  if (request) {
    db.prepare(
      `INSERT INTO requests (run_id, id, feedback_id, role, kind, question, context, choices_json,
         created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      runId,
      request.id,
      feedback.id,
      feedback.role,
      request.kind,
      request.question,
      request.context,
      toJson(request.choices),
      now,
    );
    events.push({
      type: "request.created",
      data: {
        feedbackId: feedback.id,
        role: feedback.role,
        request: JSON.parse(requestIdentity(request)),
      },
    });
  }
  return { result: "inserted", events };
}

/** Insert a human answer to an open request; returns the event that records it. */
export function insertResponse(
  db: Database.Database,
  runId: string,
  response: HumanResponse,
): NewEvent {
  if (!db.prepare("SELECT 1 FROM runs WHERE id = ?").get(runId)) throw new UnknownRunError(runId);
  if (
    !db.prepare("SELECT 1 FROM requests WHERE run_id = ? AND id = ?").get(runId, response.requestId)
  ) {
    throw new UnknownRequestError(runId, response.requestId);
  }
  if (
    db
      .prepare("SELECT 1 FROM responses WHERE run_id = ? AND request_id = ?")
      .get(runId, response.requestId)
  ) {
    throw new RequestAlreadyAnsweredError(runId, response.requestId);
  }
  if (db.prepare("SELECT 1 FROM responses WHERE run_id = ? AND id = ?").get(runId, response.id)) {
    throw new ResponseConflictError(runId, response.id);
  }
  db.prepare(
    `INSERT INTO responses (run_id, id, request_id, actor, answer, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(
    runId,
    response.id,
    response.requestId,
    response.actor,
    response.answer,
    response.createdAt,
  );
  return {
    type: "request.answered",
    data: {
      requestId: response.requestId,
      responseId: response.id,
      actor: response.actor,
      answer: response.answer,
    },
  };
}
