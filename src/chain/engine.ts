// The chain engine (domain): starts runs, drives them step by step through the StepRunner port,
// pauses on worker questions and continues after a restart. It imports no adapter; storage and
// execution come in through JournalStore and StepRunner (src/chain/ports.ts).
import type { ChainKind } from "../roles/role-names.js";
import { createDriver, type DriveHandle } from "./drive.js";
import { driverRecords } from "./driver-records.js";
import {
  InvalidInputError,
  RequestAlreadyAnsweredError,
  RequestPendingError,
  RunNotPausedError,
  RunRepoMismatchError,
  StaleStateError,
  UnknownRequestError,
  UnknownRunError,
} from "./errors.js";
import { isValidId } from "./feedback.js";
import { failDecision } from "./judge.js";
import { type LeaseOptions, runLeases } from "./leases.js";
import { newRun } from "./new-run.js";
import type {
  ChainObserver,
  Clock,
  IdSource,
  JournalStore,
  Logger,
  StepRunner,
  StoredRequest,
} from "./ports.js";
import { Slots } from "./slots.js";
import {
  type HumanResponse,
  type RepoRef,
  type RunEvent,
  type RunRecord,
  type StepRecord,
  type TaskInput,
  TERMINAL_RUN_STATES,
} from "./types.js";

export interface ChainEngineDeps {
  store: JournalStore;
  runner: StepRunner;
  clock: Clock;
  logger: Logger;
  ids: IdSource;
  /** How many runs are driven at the same time; default 2 (runs are whole agent processes). */
  maxParallel?: number;
  observer?: ChainObserver;
  /**
   * Who this process is (pid, host, start time: src/store/driver-identity.ts), journaled as a
   * `run.driver` event whenever it starts driving a run — so a run left `running` by a process
   * that is gone can be found and continued, and one still driven elsewhere is left alone.
   * The domain keeps it as opaque data.
   */
  driver?: Record<string, unknown>;
  /**
   * Whether the process a `run.driver` record names still lives (driver-identity.ts). With it,
   * `recover` leaves alone the runs another live process drives: two drivers would run a step
   * twice.
   */
  driverAlive?: (record: Record<string, unknown>) => boolean;
  /**
   * Leases (leases.ts): set where several processes may drive runs of one journal — a run is
   * then driven only while this process holds its lease, and `recover` takes over only runs
   * whose lease expired.
   */
  lease?: LeaseOptions;
}

export interface StartRunInput {
  chain: ChainKind;
  task: TaskInput;
  repo: RepoRef;
  /** R8.5: role files, settings, schemas, skills, provider, … — frozen with a sha256 digest. */
  snapshotContent: Record<string, unknown>;
  /** The most new questions the run may ask, 1–3 (R6.2). */
  requestBudget: number;
}

export interface RespondInput {
  requestId: string;
  answer: string;
  actor: string;
  responseId: string;
  /** owner/name the answer came from; when given it must be the run's repository (R6.3). */
  fromRepo?: string;
}

export interface RunStatus {
  run: RunRecord;
  steps: StepRecord[];
  pendingRequests: StoredRequest[];
  lastEvents: RunEvent[];
}

export interface ChainEngine {
  startRun(input: StartRunInput): Promise<RunRecord>;
  /** Drive the run until it passes, fails, pauses or is cancelled; resolves with that state. */
  drive(runId: string, options?: { signal?: AbortSignal }): Promise<RunRecord>;
  respond(runId: string, input: RespondInput): Promise<HumanResponse>;
  /** Resume a paused run whose requests are answered; the run is driven in the background. */
  resume(runId: string, options?: { actor?: string }): Promise<RunRecord>;
  cancel(runId: string, reason: string): Promise<RunRecord>;
  /** Continue every unfinished run after a restart (in the background); returns those runs. */
  recover(): Promise<RunRecord[]>;
  status(runId: string, options?: { eventLimit?: number }): Promise<RunStatus>;
  /** The outcome of the run's drive in progress, or its current record when none runs. */
  settled(runId: string): Promise<RunRecord | null>;
  /** Resolves when no run is being driven by this engine. */
  idle(): Promise<void>;
}

const MAX_ANSWER = 20_000;

export function createChainEngine(deps: ChainEngineDeps): ChainEngine {
  const { store, clock, logger, ids } = deps;
  const slots = new Slots(deps.maxParallel ?? 2);
  const driver = createDriver(deps);
  const { claim, drivenElsewhere } = driverRecords(deps, driver.transition);
  const leases = runLeases(deps);
  const active = new Map<string, { handle: DriveHandle; promise: Promise<RunRecord> }>();
  const now = () => clock.now().toISOString();

  async function getRun(runId: string): Promise<RunRecord> {
    const run = await store.getRun(runId);
    if (!run) throw new UnknownRunError(runId);
    return run;
  }

  function drive(runId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord> {
    const running = active.get(runId);
    // One drive per run per engine: a second caller shares the first one's outcome.
    if (running) return running.promise;
    const handle: DriveHandle = { stepController: null };
    const promise = (async () => {
      const run = await getRun(runId);
      const driven = await leases.hold(runId, options.signal, async (signal) => {
        await claim(run);
        if (!(await slots.acquire(signal))) return run;
        try {
          return await driver.drive(runId, signal, handle);
        } finally {
          slots.release();
        }
      });
      // Another process holds the run's lease: it drives the run, not this one.
      return driven ?? (await getRun(runId));
    })().finally(() => {
      if (active.get(runId)?.promise === promise) active.delete(runId);
    });
    active.set(runId, { handle, promise });
    return promise;
  }

  function driveInBackground(runId: string): void {
    drive(runId).catch((err: unknown) => {
      logger.error(
        { runId, err: err instanceof Error ? err.message : String(err) },
        "drive failed",
      );
    });
  }

  return {
    async startRun(input) {
      const { run, steps, created } = newRun(input, ids.newId(), now());
      const id = run.id;
      await store.createRun(run, steps, [created]);
      const createdEvents = await store.events(id);
      driver.observe(() => deps.observer?.events?.(id, createdEvents));
      logger.info({ runId: id, chain: run.chain, digest: run.snapshot.digest }, "run created");
      return run;
    },

    drive,

    async respond(runId, input) {
      const run = await getRun(runId);
      if (input.fromRepo !== undefined && run.repo.fullName !== input.fromRepo) {
        throw new RunRepoMismatchError(runId);
      }
      const request = (await store.listRequests(runId)).find((r) => r.id === input.requestId);
      if (!request) throw new UnknownRequestError(runId, input.requestId);
      if (request.status === "answered") throw new RequestAlreadyAnsweredError(runId, request.id);
      if (run.state !== "paused") throw new RunNotPausedError(runId, run.state);
      if (!isValidId(input.responseId)) throw new InvalidInputError("responseId is not a valid id");
      if (typeof input.actor !== "string" || input.actor.trim() === "") {
        throw new InvalidInputError("actor is required");
      }
      if (typeof input.answer !== "string" || input.answer.trim() === "") {
        throw new InvalidInputError("answer must not be empty");
      }
      if (input.answer.length > MAX_ANSWER) {
        throw new InvalidInputError(`answer is longer than ${MAX_ANSWER} characters`);
      }
      const response: HumanResponse = {
        id: input.responseId,
        requestId: input.requestId,
        actor: input.actor,
        answer: input.answer,
        createdAt: now(),
      };
      // The run stays paused: answering is evidence, continuing is a separate resume (R6.3).
      await store.recordResponse(runId, response);
      return response;
    },

    async resume(runId, options = {}) {
      const run = await getRun(runId);
      if (run.state !== "paused") throw new RunNotPausedError(runId, run.state);
      const pending = (await store.listRequests(runId)).filter((r) => r.status === "pending");
      if (pending.length > 0)
        throw new RequestPendingError(
          runId,
          pending.map((r) => r.id),
        );
      try {
        await driver.transition(runId, {
          run: { state: "running" },
          events: [{ type: "run.resumed", data: { actor: options.actor ?? null } }],
          expect: { runStates: ["paused"] },
        });
      } catch (err) {
        if (err instanceof StaleStateError) {
          throw new RunNotPausedError(runId, (await getRun(runId)).state);
        }
        throw err;
      }
      driveInBackground(runId);
      return getRun(runId);
    },

    async cancel(runId, reason) {
      for (let tries = 0; ; tries++) {
        const run = await getRun(runId);
        // Terminal states never change: a cancel after the verdict is a no-op — but a cancel
        // another process journaled still ends the step this engine is running for it.
        if (TERMINAL_RUN_STATES.has(run.state)) {
          if (run.state === "cancelled") {
            active.get(runId)?.handle.stepController?.abort(new Error(`run cancelled: ${reason}`));
          }
          return run;
        }
        const step = (await store.getSteps(runId)).find((s) => s.state === "running");
        const decision = failDecision(step?.role ?? "architect", [
          `the run was cancelled while the step ran: ${reason}`,
        ]);
        try {
          // The running step fails in the same transaction, so no later write (a runner that
          // returns after the cancel, a crashed process) can give it a verdict.
          await driver.transition(runId, {
            run: { state: "cancelled" },
            ...(step
              ? {
                  step: {
                    index: step.index,
                    patch: { state: "failed", decision, finishedAt: now() },
                  },
                }
              : {}),
            events: [
              { type: "run.cancelled", data: { reason, from: run.state } },
              ...(step
                ? [
                    {
                      type: "step.finished",
                      data: {
                        index: step.index,
                        role: step.role,
                        attempt: step.attempt,
                        verdict: "FAIL",
                        decision,
                        cancelled: true,
                      },
                    },
                  ]
                : []),
            ],
            expect: { runStates: [run.state], ...(step ? { stepAttempt: step.attempt } : {}) },
          });
          break;
        } catch (err) {
          if (!(err instanceof StaleStateError) || tries >= 3) throw err;
        }
      }
      active.get(runId)?.handle.stepController?.abort(new Error(`run cancelled: ${reason}`));
      return getRun(runId);
    },

    async recover() {
      // Paused runs stay paused: a question never triggers an automatic retry (R6.2).
      const unfinished = await store.listRuns({ states: ["queued", "running"] });
      const runs: RunRecord[] = [];
      for (const run of unfinished) {
        // Driven here already (recover also runs as a periodic sweep where runs are leased).
        if (active.has(run.id)) continue;
        if (await drivenElsewhere(run.id)) continue;
        // Leased by a live driver elsewhere: its lease, not this process, says who drives.
        if (await leases.take(run.id)) runs.push(run);
      }
      for (const run of runs) driveInBackground(run.id);
      if (runs.length > 0 || !deps.lease) {
        logger.info({ runs: runs.map((r) => r.id) }, "recovering unfinished runs");
      }
      return runs;
    },

    async status(runId, options = {}) {
      const run = await getRun(runId);
      const [steps, requests, lastEvents] = await Promise.all([
        store.getSteps(runId),
        store.listRequests(runId),
        store.lastEvents(runId, options.eventLimit ?? 20),
      ]);
      return {
        run,
        steps,
        pendingRequests: requests.filter((r) => r.status === "pending"),
        lastEvents,
      };
    },

    async settled(runId) {
      const running = active.get(runId);
      if (running) return running.promise;
      return store.getRun(runId);
    },

    async idle() {
      while (active.size > 0) {
        await Promise.allSettled([...active.values()].map((a) => a.promise));
      }
    },
  };
}
