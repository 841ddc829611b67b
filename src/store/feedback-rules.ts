// R6.1/R6.2 rules of the journal's feedback and answers, apart from any database: each store
// looks the facts up inside its own transaction, asks these functions what to do, and writes
// what they say. One set of rules for SQLite and PostgreSQL.
import {
  FeedbackConflictError,
  RequestAlreadyAnsweredError,
  RequestBudgetExceededError,
  ResponseConflictError,
  UnknownRequestError,
  UnknownRunError,
} from "../chain/errors.js";
import { feedbackIdentity, requestIdentity } from "../chain/feedback.js";
import type { HumanResponse, WorkerFeedback } from "../chain/types.js";

export type NewEvent = { type: string; data: Record<string, unknown> };

/** What a store found, for one (validated) feedback, inside its transaction. */
export interface FeedbackFacts {
  /** The run's frozen request budget; null when there is no such run. */
  budget: number | null;
  /** The canonical JSON of feedback with the same id already journaled, if any. */
  existing: string | null;
  /** The feedback that owns the request's id already, if any. */
  requestOwner: string | null;
  /** Requests the run has asked so far. */
  asked: number;
}

export type FeedbackPlan =
  | { result: "duplicate"; events: NewEvent[] }
  | { result: "inserted"; identity: string; events: NewEvent[] };

/** Duplicate, insert (with the events that explain it), or a typed error that aborts. */
export function planFeedback(
  runId: string,
  feedback: WorkerFeedback,
  facts: FeedbackFacts,
): FeedbackPlan {
  if (facts.budget === null) throw new UnknownRunError(runId);
  const identity = feedbackIdentity(runId, feedback);
  if (facts.existing !== null) {
    if (facts.existing === identity) return { result: "duplicate", events: [] };
    throw new FeedbackConflictError(runId, feedback.id, "same id, different content");
  }
  const request = feedback.request;
  if (request) {
    if (facts.requestOwner !== null) {
      throw new FeedbackConflictError(
        runId,
        feedback.id,
        `request id ${request.id} already belongs to feedback ${facts.requestOwner}`,
      );
    }
    // Only NEW questions count against the frozen budget (a replay returned above).
    if (facts.asked >= facts.budget) throw new RequestBudgetExceededError(runId, facts.budget);
  }
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
    events.push({
      type: "request.created",
      data: {
        feedbackId: feedback.id,
        role: feedback.role,
        request: JSON.parse(requestIdentity(request)),
      },
    });
  }
  return { result: "inserted", identity, events };
}

/** What a store found for one answer, inside its transaction. */
export interface ResponseFacts {
  run: boolean;
  request: boolean;
  answered: boolean;
  idTaken: boolean;
}

/** The event that records an answer to an open request, or the typed error that refuses it. */
export function planResponse(
  runId: string,
  response: HumanResponse,
  facts: ResponseFacts,
): NewEvent {
  if (!facts.run) throw new UnknownRunError(runId);
  if (!facts.request) throw new UnknownRequestError(runId, response.requestId);
  if (facts.answered) throw new RequestAlreadyAnsweredError(runId, response.requestId);
  if (facts.idTaken) throw new ResponseConflictError(runId, response.id);
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
