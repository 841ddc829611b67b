// R6.1/R6.2 writes of the SQLite journal: feedback with its one request, and human responses.
// The rules are feedback-rules.ts; these functions look the facts up and write, inside the
// caller's transaction, and throw to abort it.
import type Database from "better-sqlite3";
import { validateFeedback } from "../chain/feedback.js";
import type { HumanResponse, WorkerFeedback } from "../chain/types.js";
import { type NewEvent, planFeedback, planResponse } from "./feedback-rules.js";
import { toJson } from "./rows.js";

export type { NewEvent } from "./feedback-rules.js";

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
  const existing = db
    .prepare("SELECT canonical_json FROM feedback WHERE run_id = ? AND id = ?")
    .get(runId, feedback.id) as { canonical_json: string } | undefined;
  const request = feedback.request;
  const owner = request
    ? (db
        .prepare("SELECT feedback_id FROM requests WHERE run_id = ? AND id = ?")
        .get(runId, request.id) as { feedback_id: string } | undefined)
    : undefined;
  const asked = (
    db.prepare("SELECT count(*) AS n FROM requests WHERE run_id = ?").get(runId) as { n: number }
  ).n;
  const plan = planFeedback(runId, feedback, {
    budget: run?.request_budget ?? null,
    existing: existing?.canonical_json ?? null,
    requestOwner: owner?.feedback_id ?? null,
    asked,
  });
  if (plan.result === "duplicate") return plan;
  db.prepare(
    `INSERT INTO feedback (run_id, id, role, attempt, disposition, canonical_json, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    runId,
    feedback.id,
    feedback.role,
    feedback.attempt,
    feedback.disposition,
    plan.identity,
    now,
  );
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
  }
  return { result: "inserted", events: plan.events };
}

/** Insert a human answer to an open request; returns the event that records it. */
export function insertResponse(
  db: Database.Database,
  runId: string,
  response: HumanResponse,
): NewEvent {
  const has = (sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) !== undefined;
  const event = planResponse(runId, response, {
    run: has("SELECT 1 FROM runs WHERE id = ?", runId),
    request: has("SELECT 1 FROM requests WHERE run_id = ? AND id = ?", runId, response.requestId),
    answered: has(
      "SELECT 1 FROM responses WHERE run_id = ? AND request_id = ?",
      runId,
      response.requestId,
    ),
    idTaken: has("SELECT 1 FROM responses WHERE run_id = ? AND id = ?", runId, response.id),
  });
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
  return event;
}
