// The driving loop of one run: start the next step, run it, journal the judged result, repeat.
// Every decision is re-read from the journal before it is acted on, so the loop continues a run
// exactly where the journal says it stood — after a restart just as after a pause.

import type { ChainEngineDeps } from "./engine.js";
import {
  FeedbackConflictError,
  FeedbackInvalidError,
  RequestBudgetExceededError,
  StaleStateError,
  UnknownRunError,
} from "./errors.js";
import { failDecision, judgeStepResult } from "./judge.js";
import type { PriorOutput, StepInput, StepProgress, Transition } from "./ports.js";
import { verifySnapshot } from "./snapshot.js";
import {
  MAX_ATTEMPTS,
  type RunRecord,
  type StepRecord,
  TERMINAL_RUN_STATES,
  type WorkerRequest,
} from "./types.js";

type NewEvent = Transition["events"][number];

/** What the engine shares with a drive in progress: the running step's abort switch. */
export interface DriveHandle {
  stepController: AbortController | null;
}

// Event types the engine writes itself; a runner event with such a name is renamed so that the
// history cannot be spoofed from below (a runner saying "step.finished").
const ENGINE_PREFIXES = ["run.", "step.", "feedback.", "request."];
const MAX_REASON = 500;

export function createDriver(deps: ChainEngineDeps) {
  const { store, runner, clock, logger } = deps;
  const now = () => clock.now().toISOString();

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
          await store.transition(runId, {
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
    await store.transition(run.id, {
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
    await store.transition(run.id, {
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
      await store.transition(run.id, {
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
    await store.transition(run.id, {
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
      const why = "the run was cancelled while the step ran";
      await store.transition(run.id, {
        step: {
          index: step.index,
          patch: { state: "failed", decision: failDecision(step.role, [why]), finishedAt: now() },
        },
        events: [
          {
            type: "step.finished",
            data: { index: step.index, role: step.role, attempt, verdict: "FAIL", cancelled: true },
          },
        ],
        expect: { stepAttempt: attempt },
      });
      return;
    }
    if (signal?.aborted) {
      // The caller stopped driving (shutdown), not a verdict: the next drive re-attempts.
      await interrupt(current, running, "driving was stopped while the step was running");
      return;
    }
    if (error !== undefined) {
      const why = `the runner failed: ${clip(error instanceof Error ? error.message : String(error))}`;
      await failStep(current, running, attempt, failDecision(step.role, [why]), [], null);
      return;
    }
    await journalResult(current, running, attempt, result, requests);
  }

  async function journalResult(
    run: RunRecord,
    step: StepRecord,
    attempt: number,
    result: unknown,
    requests: Awaited<ReturnType<typeof store.listRequests>>,
  ): Promise<void> {
    const r = (result ?? {}) as Record<string, unknown>;
    const ctx = { index: step.index, role: step.role, attempt };
    const events = runnerEvents(r.events, ctx);
    const runPatch = pickRunPatch(r.runPatch);
    const judged = judgeStepResult(result, step.role, attempt);
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
        await store.transition(run.id, {
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
        await store.transition(run.id, {
          feedback: judged.feedback,
          run: runPatch,
          step: {
            index: step.index,
            patch: {
              state: "passed",
              decision: judged.decision,
              output: r.output ?? null,
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
      await failStep(run, step, attempt, judged.decision, events, r.output, {
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
        data: { ...base, reason: err.message, feedback: r.feedback ?? null },
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

  async function stepInput(
    run: RunRecord,
    steps: StepRecord[],
    step: StepRecord,
    attempt: number,
    requests: Awaited<ReturnType<typeof store.listRequests>>,
  ): Promise<Omit<StepInput, "signal">> {
    const prior: PriorOutput[] = steps
      .filter((s) => s.index < step.index && s.state === "passed" && s.decision)
      .map((s) => ({
        role: s.role,
        decision: s.decision as NonNullable<typeof s.decision>,
        output: s.output,
      }));
    const responses = new Map((await store.listResponses(run.id)).map((x) => [x.requestId, x]));
    const answers = requests
      .filter((q) => q.role === step.role && q.status === "answered" && responses.has(q.id))
      .map((q) => ({
        request: requestData(q),
        response: responses.get(q.id) as NonNullable<ReturnType<typeof responses.get>>,
      }));
    return {
      run,
      role: step.role,
      index: step.index,
      attempt,
      chain: run.chain,
      task: run.task,
      prior,
      answers,
      progress: (p: StepProgress) => logger.debug({ runId: run.id, ...p }, "step progress"),
    };
  }

  async function finish(run: RunRecord, steps: StepRecord[]): Promise<void> {
    const failed = steps.find((s) => s.state === "failed");
    const reasons: string[] = failed
      ? [`step ${failed.index} (${failed.role}) failed`, ...(failed.decision?.reasons ?? [])]
      : [];
    let artifacts: Awaited<ReturnType<typeof runner.finishRun>> | null = null;
    try {
      artifacts = await runner.finishRun(run, steps);
    } catch (err) {
      reasons.push(
        `finishing the run failed: ${clip(err instanceof Error ? err.message : String(err))}`,
      );
    }
    await endRun(run, failed || !artifacts ? "failed" : "passed", reasons, artifacts);
  }

  async function endRun(
    run: RunRecord,
    state: "passed" | "failed",
    reasons: string[],
    artifacts: Awaited<ReturnType<typeof runner.finishRun>> | null,
  ): Promise<void> {
    const events = artifacts ? runnerEvents(artifacts.events, {}) : [];
    await store.transition(run.id, {
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

  return { drive };
}

function requestData(r: WorkerRequest): WorkerRequest {
  return {
    id: r.id,
    kind: r.kind,
    question: r.question,
    context: r.context,
    ...(r.choices ? { choices: [...r.choices] } : {}),
  };
}

function pickRunPatch(value: unknown): Transition["run"] {
  if (value === null || typeof value !== "object") return {};
  const v = value as Record<string, unknown>;
  const patch: NonNullable<Transition["run"]> = {};
  if (typeof v.baseSha === "string") patch.baseSha = v.baseSha;
  if (typeof v.branch === "string") patch.branch = v.branch;
  return patch;
}

function runnerEvents(value: unknown, ctx: Record<string, unknown>): NewEvent[] {
  if (!Array.isArray(value)) return [];
  return value.map((e) => {
    const raw = (e ?? {}) as Record<string, unknown>;
    let type = typeof raw.type === "string" && raw.type !== "" ? raw.type : "runner.event";
    if (ENGINE_PREFIXES.some((p) => type.startsWith(p))) type = `runner.${type}`;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(JSON.stringify(raw.data ?? {}));
      if (data === null || typeof data !== "object" || Array.isArray(data)) data = { value: data };
    } catch {
      data = { error: "event data was not JSON" };
    }
    // The engine's own keys win: a runner cannot claim another step.
    return { type, data: { ...data, ...ctx } };
  });
}

function clip(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
}
