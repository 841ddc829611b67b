// The one table of legal run and step state changes. Both the engine (before it asks) and the
// journal (inside the write transaction, against the row as stored) check it, so a change that
// raced with another one (a cancel, a second engine after a restart) cannot slip through.
import { IllegalTransitionError } from "./errors.js";
import type { RunState, StepState } from "./types.js";

export const RUN_TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  queued: ["running", "cancelled"],
  running: ["paused", "passed", "failed", "cancelled"],
  // A paused run only moves on by an explicit resume (R6.2: questions never retry by themselves).
  paused: ["running", "cancelled"],
  passed: [],
  failed: [],
  cancelled: [],
};

export const STEP_TRANSITIONS: Readonly<Record<StepState, readonly StepState[]>> = {
  // queued → failed: a step whose attempts are used up fails without running again.
  queued: ["running", "failed"],
  // running → queued: the step was interrupted (process died, drive stopped); the attempt is
  // counted and the next start is a new attempt.
  running: ["passed", "failed", "blocked", "queued"],
  // blocked → running: resumed after the answer, as a new attempt; → failed: no attempts left.
  blocked: ["running", "failed"],
  passed: [],
  failed: [],
};

export function canRunTransition(from: RunState, to: RunState): boolean {
  return RUN_TRANSITIONS[from]?.includes(to) ?? false;
}

export function canStepTransition(from: StepState, to: StepState): boolean {
  return STEP_TRANSITIONS[from]?.includes(to) ?? false;
}

export function assertRunTransition(from: RunState, to: RunState): void {
  if (!canRunTransition(from, to)) throw new IllegalTransitionError("run", from, to);
}

export function assertStepTransition(from: StepState, to: StepState): void {
  if (!canStepTransition(from, to)) throw new IllegalTransitionError("step", from, to);
}
