// Typed errors of the chain domain. Callers at the boundaries (CLI, App) map them to replies by
// `code`, never by message text, so messages can stay human and change freely.

export class ChainError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A state change the run/step state machine does not allow (src/chain/state-machine.ts). */
export class IllegalTransitionError extends ChainError {
  constructor(
    readonly entity: "run" | "step",
    readonly from: string,
    readonly to: string,
  ) {
    super("illegal_transition", `${entity} cannot go from ${from} to ${to}`);
  }
}

/**
 * A transition's expectation no longer holds (the run or step moved on meanwhile, e.g. it was
 * cancelled, or another engine took the step over after a restart). Nothing was written.
 */
export class StaleStateError extends ChainError {
  constructor(message: string) {
    super("stale_state", message);
  }
}

export class UnknownRunError extends ChainError {
  constructor(readonly runId: string) {
    super("unknown_run", `no run with id ${runId}`);
  }
}

export class UnknownStepError extends ChainError {
  constructor(runId: string, index: number) {
    super("unknown_step", `run ${runId} has no step ${index}`);
  }
}

export class UnknownRequestError extends ChainError {
  constructor(runId: string, requestId: string) {
    super("unknown_request", `run ${runId} has no request ${requestId}`);
  }
}

export class RequestAlreadyAnsweredError extends ChainError {
  constructor(runId: string, requestId: string) {
    super("request_already_answered", `request ${requestId} of run ${runId} is already answered`);
  }
}

/** A response id that is already used by another answer of the same run. */
export class ResponseConflictError extends ChainError {
  constructor(runId: string, responseId: string) {
    super("response_conflict", `run ${runId} already has a response with id ${responseId}`);
  }
}

export class RunNotPausedError extends ChainError {
  constructor(
    runId: string,
    readonly state: string,
  ) {
    super("run_not_paused", `run ${runId} is ${state}, not paused`);
  }
}

/** R6.3: /forge resume is refused while a question is open. */
export class RequestPendingError extends ChainError {
  constructor(
    runId: string,
    readonly requestIds: string[],
  ) {
    super(
      "request_pending",
      `run ${runId} waits for an answer to ${requestIds.join(", ")}; answer before resuming`,
    );
  }
}

/** A run of one repository answered from another (R6.3). */
export class RunRepoMismatchError extends ChainError {
  constructor(runId: string) {
    super("run_repo_mismatch", `run ${runId} belongs to another repository`);
  }
}

/** R6.2: the same feedback id (or request id) with different content. */
export class FeedbackConflictError extends ChainError {
  constructor(
    readonly runId: string,
    readonly feedbackId: string,
    detail: string,
  ) {
    super("feedback_conflict", `feedback ${feedbackId} of run ${runId}: ${detail}`);
  }
}

/** R6.1: feedback that is not well-typed (bad disposition/request pairing, bad attempt, …). */
export class FeedbackInvalidError extends ChainError {
  constructor(readonly problems: string[]) {
    super("feedback_invalid", `invalid worker feedback: ${problems.join("; ")}`);
  }
}

/** R6.2: a new question beyond the run's frozen request budget. */
export class RequestBudgetExceededError extends ChainError {
  constructor(
    runId: string,
    readonly budget: number,
  ) {
    super(
      "request_budget_exceeded",
      `run ${runId} has spent its request budget (${budget} of ${budget} questions)`,
    );
  }
}

/** Input to an engine call that is malformed (bad chain, budget, answer, …). */
export class InvalidInputError extends ChainError {
  constructor(message: string) {
    super("invalid_input", message);
  }
}

/** R8.5: snapshot content that is not plain JSON, or a stored snapshot whose digest is off. */
export class SnapshotError extends ChainError {
  constructor(message: string) {
    super("snapshot_invalid", message);
  }
}
