// What became of a step, written to the journal: the runner's judged result (a pass, a fail or
// a question), a failure the driver decides itself, or an interrupted attempt. Apart from the
// driving loop (drive.ts) because these are the transactions themselves — which events, step
// patch and feedback are written together, and under which expectation — while the loop only
// decides when each applies.

import {
  FeedbackConflictError,
  FeedbackInvalidError,
  RequestBudgetExceededError,
} from "./errors.js";
import { failDecision, judgeStepResult } from "./judge.js";
import type { StoredRequest, Transition } from "./ports.js";
import { type NewEvent, pickRunPatch, requestData, runnerEvents } from "./step-events.js";
import { MAX_ATTEMPTS, type RunEvent, type RunRecord, type StepRecord } from "./types.js";

export interface StepOutcomeDeps {
  /** The driver's journal write, so observers see these events like every other. */
  transition(runId: string, change: Transition): Promise<RunEvent[]>;
  now(): string;
}

export function createStepOutcomes({ transition, now }: StepOutcomeDeps) {
  async function interrupt(run: RunRecord, step: StepRecord, reason: string): Promise<void> {
    const event = {
      type: "step.interrupted",
      data: { index: step.index, role: step.role, attempt: step.attempt, reason },
    };
    const expect = { runStates: ["running"] as const, stepAttempt: step.attempt };
    if (step.attempt >= MAX_ATTEMPTS) {
      const why = `${reason}; no attempts left (${step.attempt} of ${MAX_ATTEMPTS} used)`;
      await failStep(run, step, step.attempt, failDecision(step.role, [why]), [event], null);
      return;
    }
    await transition(run.id, {
      step: { index: step.index, patch: { state: "queued" } },
      events: [event],
      expect,
    });
  }

  async function failStep(
    run: RunRecord,
    step: StepRecord,
    attempt: number,
    decision: ReturnType<typeof failDecision>,
    events: NewEvent[],
    output: unknown,
    extra: Partial<Transition> = {},
  ): Promise<void> {
    await transition(run.id, {
      ...extra,
      step: {
        index: step.index,
        patch: { state: "failed", decision, output: output ?? null, finishedAt: now() },
      },
      events: [
        ...events,
        {
          type: "step.finished",
          data: { index: step.index, role: step.role, attempt, verdict: "FAIL", decision },
        },
      ],
      expect: { runStates: ["running"], stepAttempt: attempt },
    });
  }

  async function journalResult(
    run: RunRecord,
    step: StepRecord,
    attempt: number,
    result: unknown,
    requests: StoredRequest[],
  ): Promise<void> {
    const r = (result ?? {}) as Record<string, unknown>;
    const ctx = { index: step.index, role: step.role, attempt };
    const events = runnerEvents(r.events, ctx);
    const runPatch = pickRunPatch(r.runPatch);
    const judged = await judgeStepResult(result, step.role, attempt);
    const base = { index: step.index, role: step.role, attempt };
    try {
      if (judged.kind === "question") {
        const seen = requests.find((q) => q.id === judged.request.id);
        if (seen?.status === "answered") {
          const why = `the worker asked request ${seen.id} again, which is already answered`;
          await failStep(run, step, attempt, failDecision(step.role, [why]), events, null, {
            run: runPatch,
          });
          return;
        }
        // One transaction: the feedback and its request are journaled first, then the pause —
        // a crash can never leave a paused run without its question, or a question unjournaled.
        await transition(run.id, {
          feedback: judged.feedback,
          run: { ...runPatch, state: "paused" },
          step: { index: step.index, patch: { state: "blocked", finishedAt: now() } },
          events: [
            ...events,
            { type: "step.blocked", data: { ...base, requestId: judged.request.id } },
            { type: "run.paused", data: { ...base, request: requestData(judged.request) } },
          ],
          expect: { runStates: ["running"], stepAttempt: attempt },
        });
        return;
      }
      if (judged.kind === "pass") {
        await transition(run.id, {
          feedback: judged.feedback,
          run: runPatch,
          step: {
            index: step.index,
            patch: {
              state: "passed",
              decision: judged.decision,
              output: judged.output ?? null,
              finishedAt: now(),
            },
          },
          events: [
            ...events,
            {
              type: "step.finished",
              data: { ...base, verdict: "PASS", decision: judged.decision },
            },
          ],
          expect: { runStates: ["running"], stepAttempt: attempt },
        });
        return;
      }
      await failStep(run, step, attempt, judged.decision, events, judged.output, {
        run: runPatch,
        ...(judged.feedback ? { feedback: judged.feedback } : {}),
      });
    } catch (err) {
      // Feedback the journal refuses (conflict, budget, invalid) fails the step, and the refusal
      // is itself journaled — with the feedback as evidence, but without opening its request.
      const refusal =
        err instanceof FeedbackConflictError ||
        err instanceof FeedbackInvalidError ||
        err instanceof RequestBudgetExceededError;
      if (!refusal) throw err;
      const refused = {
        type: "feedback.refused",
        data: { ...base, reason: err.message, feedback: judged.feedback ?? null },
      };
      await failStep(
        run,
        step,
        attempt,
        failDecision(step.role, [err.message], judged.kind === "pass"),
        [...events, refused],
        null,
        { run: runPatch },
      );
    }
  }

  return { interrupt, failStep, journalResult };
}
