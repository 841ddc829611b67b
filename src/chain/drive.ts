// The driving loop of one run: start the next step, run it, journal the judged result, repeat.
// Every decision is re-read from the journal before it is acted on, so the loop continues a run
// exactly where the journal says it stood — after a restart just as after a pause.

import type { ChainEngineDeps } from "./engine.js";
import { StaleStateError, UnknownRunError } from "./errors.js";
import { failDecision } from "./judge.js";
import type { RunArtifacts, StepInput, StoredRequest, Transition } from "./ports.js";
import { createSetupPhase } from "./setup-phase.js";
import { verifySnapshot } from "./snapshot.js";
import { errorText, runnerEvents, stepContext } from "./step-events.js";
import { createStepOutcomes } from "./step-outcomes.js";
import {
  MAX_ATTEMPTS,
  type RunEvent,
  type RunRecord,
  type StepRecord,
  TERMINAL_RUN_STATES,
} from "./types.js";

/** What the engine shares with a drive in progress: the running step's abort switch. */
export interface DriveHandle {
  stepController: AbortController | null;
}

export function createDriver(deps: ChainEngineDeps) {
  const { store, runner, clock, logger } = deps;
  const now = () => clock.now().toISOString();
  // Hoisted below: the setup phase needs the driver's own journal writes and endRun.
  const setup = createSetupPhase({
    runner,
    clock,
    transition: (runId, change) => transition(runId, change),
    getRun: (runId) => getRun(runId),
    endRun: (run, state, reasons) => endRun(run, state, reasons, null),
    progress: (runId, p) => observe(() => deps.observer?.progress?.(runId, p)),
  });

  const { interrupt, failStep, journalResult } = createStepOutcomes({ transition, now });

  /** Observers report; they never break the chain, whatever they throw. */
  function observe(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      logger.warn({ err: errorText(err) }, "chain observer threw");
    }
  }

  /** Every journal write goes through here so observers see each event once, in order. */
  async function transition(runId: string, change: Transition): Promise<RunEvent[]> {
    const events = await store.transition(runId, change);
    observe(() => deps.observer?.events?.(runId, events));
    return events;
  }

  async function getRun(runId: string): Promise<RunRecord> {
    const run = await store.getRun(runId);
    if (!run) throw new UnknownRunError(runId);
    return run;
  }

  async function drive(runId: string, signal: AbortSignal | undefined, handle: DriveHandle) {
    for (;;) {
      const run = await getRun(runId);
      if (TERMINAL_RUN_STATES.has(run.state) || run.state === "paused" || signal?.aborted) {
        return run;
      }
      try {
        if (run.state === "queued") {
          await transition(runId, {
            run: { state: "running" },
            events: [{ type: "run.started", data: {} }],
            expect: { runStates: ["queued"] },
          });
          continue;
        }
        if (!verifySnapshot(run.snapshot)) {
          // R8.5: the frozen content no longer matches its digest — do not run on it.
          await endRun(run, "failed", ["the run's snapshot does not match its digest"], null);
          continue;
        }
        const steps = await store.getSteps(runId);
        if (setup.needed(runId, steps)) {
          await setup.run(run, signal, handle);
          continue;
        }
        const next = steps.find((s) => s.state !== "passed");
        if (!next || next.state === "failed") {
          await finish(run, steps);
          continue;
        }
        if (next.state === "running") {
          // Nobody in this process runs it (drives are deduplicated per run), so the process
          // that did died: count the attempt and start a new one — never drop the step.
          await interrupt(run, next, "the process stopped while the step was running");
          continue;
        }
        await runStep(run, steps, next, signal, handle);
      } catch (err) {
        // Someone else moved the run on. A cancel or a pause ends this drive; anything else means
        // another engine is driving the run, and this one must not write over it.
        if (err instanceof StaleStateError) {
          const again = await getRun(runId);
          logger.warn({ runId, state: again.state, err: err.message }, "transition lost a race");
          if (TERMINAL_RUN_STATES.has(again.state) || again.state === "paused") return again;
        }
        throw err;
      }
    }
  }

  async function runStep(
    run: RunRecord,
    steps: StepRecord[],
    step: StepRecord,
    signal: AbortSignal | undefined,
    handle: DriveHandle,
  ): Promise<void> {
    const requests = await store.listRequests(run.id);
    if (requests.some((r) => r.role === step.role && r.status === "pending")) {
      // A question is open: it is never retried by itself (R6.2). Only a crash between a resume
      // and this point gets here; put the run back to waiting.
      await transition(run.id, {
        run: { state: "paused" },
        events: [{ type: "run.paused", data: { index: step.index, role: step.role } }],
        expect: { runStates: ["running"] },
      });
      return;
    }
    const attempt = step.attempt + 1;
    if (attempt > MAX_ATTEMPTS) {
      const why = `no attempts left (${step.attempt} of ${MAX_ATTEMPTS} used)`;
      await failStep(run, step, step.attempt, failDecision(step.role, [why]), [], null);
      return;
    }
    await transition(run.id, {
      step: {
        index: step.index,
        patch: { state: "running", attempt, startedAt: now(), finishedAt: null },
      },
      events: [{ type: "step.started", data: { index: step.index, role: step.role, attempt } }],
      expect: { runStates: ["running"], stepAttempt: step.attempt },
    });
    const input = await stepInput(run, steps, step, attempt, requests);
    const controller = new AbortController();
    handle.stepController = controller;
    const stepSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    let result: unknown;
    let error: unknown;
    try {
      result = await runner.runStep({ ...input, signal: stepSignal });
    } catch (err) {
      error = err;
    } finally {
      handle.stepController = null;
    }
    const current = await getRun(run.id);
    const running = { ...step, state: "running" as const, attempt };
    if (current.state === "cancelled") {
      // cancel() already failed this step in the same transaction as the cancel; whatever the
      // runner returned after that is not a verdict.
      return;
    }
    if (signal?.aborted) {
      // The caller stopped driving (shutdown), not a verdict: the next drive re-attempts.
      await interrupt(current, running, "driving was stopped while the step was running");
      return;
    }
    if (error !== undefined) {
      const why = `the runner failed: ${errorText(error)}`;
      await failStep(current, running, attempt, failDecision(step.role, [why]), [], null);
      return;
    }
    await journalResult(current, running, attempt, result, requests);
  }

  async function stepInput(
    run: RunRecord,
    steps: StepRecord[],
    step: StepRecord,
    attempt: number,
    requests: StoredRequest[],
  ): Promise<Omit<StepInput, "signal">> {
    const context = stepContext(steps, step, requests, await store.listResponses(run.id));
    const after = steps.find((s) => s.index === step.index + 1);
    return {
      run,
      role: step.role,
      index: step.index,
      attempt,
      chain: run.chain,
      task: run.task,
      ...(after?.state === "queued"
        ? { next: { role: after.role, index: after.index, attempt: after.attempt + 1 } }
        : {}),
      ...context,
      progress: (p) => observe(() => deps.observer?.progress?.(run.id, p)),
    };
  }

  async function finish(run: RunRecord, steps: StepRecord[]): Promise<void> {
    const failed = steps.find((s) => s.state === "failed");
    const reasons: string[] = failed
      ? [`step ${failed.index} (${failed.role}) failed`, ...(failed.decision?.reasons ?? [])]
      : [];
    let artifacts: RunArtifacts | null = null;
    try {
      artifacts = await runner.finishRun(run, steps);
    } catch (err) {
      reasons.push(`finishing the run failed: ${errorText(err)}`);
    }
    await endRun(run, failed || !artifacts ? "failed" : "passed", reasons, artifacts);
  }

  async function endRun(
    run: RunRecord,
    state: "passed" | "failed",
    reasons: string[],
    artifacts: RunArtifacts | null,
  ): Promise<void> {
    const events = artifacts ? runnerEvents(artifacts.events, {}) : [];
    await transition(run.id, {
      run: { state, ...(artifacts?.branch ? { branch: artifacts.branch } : {}) },
      events: [
        ...events,
        {
          type: "run.finished",
          data: {
            state,
            reasons,
            runOutputPath: artifacts?.runOutputPath ?? null,
            branch: artifacts?.branch ?? null,
            headSha: artifacts?.headSha ?? null,
          },
        },
      ],
      expect: { runStates: ["running"] },
    });
  }

  return { drive, transition, observe };
}
