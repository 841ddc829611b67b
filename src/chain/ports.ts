// The engine's ports: the domain (src/chain) talks to storage and execution only through
// these interfaces, so every adapter can be swapped (SQLite → PostgreSQL, local bwrap runner
// → GitHub Actions) and tested with a real implementation of the layer below.
import type { Decision } from "../roles/decision.js";
import type { ChainKind, Role } from "../roles/role-names.js";
import type {
  HumanResponse,
  RunEvent,
  RunRecord,
  RunSnapshot,
  RunState,
  StepRecord,
  TaskInput,
  WorkerFeedback,
  WorkerRequest,
} from "./types.js";

export interface Clock {
  now(): Date;
}

/** Fresh unique ids (run ids); injected so tests can make them predictable. */
export interface IdSource {
  newId(): string;
}

export interface Logger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

/** A state change applied atomically with the events that explain it. */
export interface Transition {
  run?: Partial<Pick<RunRecord, "state" | "baseSha" | "branch">>;
  step?: { index: number; patch: Partial<Omit<StepRecord, "runId" | "index" | "role">> };
  events: Array<{ type: string; data: Record<string, unknown> }>;
  /**
   * Preconditions checked inside the same transaction; when one does not hold the store throws
   * StaleStateError and writes nothing (a cancel or a second engine got there first).
   */
  expect?: {
    /** The run must currently be in one of these states. */
    runStates?: readonly RunState[];
    /** The step named in `step` must currently be at this attempt. */
    stepAttempt?: number;
  };
  /**
   * R6.2: worker feedback journaled in the same transaction, before the events, exactly as
   * `recordFeedback` would (idempotent replay, conflict and budget errors abort the transition).
   */
  feedback?: WorkerFeedback;
}

export interface StoredRequest extends WorkerRequest {
  runId: string;
  role: Role;
  feedbackId: string;
  status: "pending" | "answered";
  createdAt: string;
}

export interface BoxProof {
  /** Which box this proof is for, e.g. "bwrap:<repo remote>". */
  boxKey: string;
  /** The facts the proof holds for (R7.2): any change makes it stale. */
  facts: Record<string, string>;
  ok: boolean;
  /** The checks that ran, in order, with their outcome. */
  checks: Array<{ name: string; ok: boolean; detail: string }>;
  provedAt: string;
}

/**
 * The journal. Every write is one transaction; an acknowledged write survives a crash.
 * Async so that a PostgreSQL implementation fits the same interface.
 */
export interface JournalStore {
  /** Creates the run and its steps and appends `events` (e.g. run.created), atomically. */
  createRun(
    run: RunRecord,
    steps: StepRecord[],
    events?: Array<{ type: string; data: Record<string, unknown> }>,
  ): Promise<void>;
  getRun(id: string): Promise<RunRecord | null>;
  listRuns(filter?: { states?: RunRecord["state"][]; limit?: number }): Promise<RunRecord[]>;
  /** The newest `limit` runs, newest first (`forge status`). */
  recentRuns(limit: number): Promise<RunRecord[]>;
  getSteps(runId: string): Promise<StepRecord[]>;
  /** Apply the patches and append the events in one transaction; returns the new events. */
  transition(runId: string, change: Transition): Promise<RunEvent[]>;
  events(runId: string, afterSeq?: number): Promise<RunEvent[]>;
  /** The last `limit` events of a run, oldest first. */
  lastEvents(runId: string, limit: number): Promise<RunEvent[]>;
  /** A run's events of these types, oldest first. */
  eventsOfType(runId: string, types: readonly string[]): Promise<RunEvent[]>;
  /** A run's newest event of this type. */
  latestEvent(runId: string, type: string): Promise<RunEvent | null>;

  /**
   * R6.2: journal worker feedback (and its request, if any). Replaying the same feedback is
   * idempotent ("duplicate"); the same id with different content throws FeedbackConflictError.
   */
  recordFeedback(runId: string, feedback: WorkerFeedback): Promise<"inserted" | "duplicate">;
  listFeedback(runId: string): Promise<WorkerFeedback[]>;
  listRequests(runId: string): Promise<StoredRequest[]>;
  /** Records the answer and marks the request answered, in one transaction. */
  recordResponse(runId: string, response: HumanResponse): Promise<void>;
  listResponses(runId: string): Promise<HumanResponse[]>;

  /** Seal nonces (R6.4): true the first time a nonce is consumed, false ever after. */
  consumeNonce(nonce: string, expiresAt: string): Promise<boolean>;
  /** Webhook deliveries (R1.5): true the first time an id is seen, false ever after. */
  markDelivery(deliveryId: string): Promise<boolean>;

  /**
   * R10.2: takes or renews the run's lease for `owner` until `expiresAt` (ISO) — when nobody
   * holds it, its holder's lease expired before `now`, or `owner` holds it already. True when
   * `owner` holds it afterwards. Of several owners asking at once, one gets it.
   */
  leaseRun(runId: string, owner: string, now: string, expiresAt: string): Promise<boolean>;
  /** Gives `owner`'s lease on the run back (nothing when another holds it). */
  releaseRun(runId: string, owner: string): Promise<void>;

  saveProof(proof: BoxProof): Promise<void>;
  latestProof(boxKey: string): Promise<BoxProof | null>;

  close(): Promise<void>;
}

/** Live progress of a step, for the terminal and the sticky comment. */
export interface StepProgress {
  role: Role;
  /** Short description of the last tool call, e.g. "Bash: npm test". */
  lastTool?: string;
  /** A guard or settings refusal the agent ran into. */
  refusal?: string;
}

export interface PriorOutput {
  role: Role;
  decision: Decision;
  output: unknown;
}

export interface StepInput {
  run: RunRecord;
  role: Role;
  index: number;
  attempt: number;
  chain: ChainKind;
  task: TaskInput;
  /** Outputs of the steps before this one (the architect's plan for the builder, …). */
  prior: PriorOutput[];
  /** Human answers to this step's earlier requests, oldest first. */
  answers: Array<{ request: WorkerRequest; response: HumanResponse }>;
  /**
   * The step that runs after this one if it PASSes. A runner may get its agent ready (a warm
   * start) but must not give it any work before its own runStep: R3.4.
   */
  next?: { role: Role; index: number; attempt: number };
  signal: AbortSignal;
  progress(progress: StepProgress): void;
}

/**
 * What a runner measured of one step — never its verdict. Steps may run where the engine cannot
 * trust them (a GitHub Actions job), so the engine applies the verdict rules itself
 * (judge.ts): nothing a runner adds here (a decision, a verdict) is read.
 */
export interface StepResult {
  /**
   * What the agent printed, as its provider parsed it (the result object; null when nothing
   * parsed): not validated, and not redacted — the secret rule must see the secrets; the engine
   * journals only its redacted copy. Absent when no agent ran: the runner failed the step before
   * its start, and `failures` say why.
   */
  agentOutput?: unknown;
  /**
   * Why the step FAILs whatever the agent wrote, as the runner measured it: how the agent's
   * process ended (start, timeout, turns, cancel, exit), the role gate, writes by a read-only
   * step, the builder's checks (import, verify, controls, secret scan). Empty when none did.
   */
  failures: string[];
  /**
   * The change's real diff (`base..head`, files the agents were not shown included), for the
   * security secret rule; set for the reviewing steps. The engine refuses a security result
   * without it. Never journaled.
   */
  diff?: string;
  /** Facts the runner established (write detected, verify failed, …), journaled as events. */
  events: Array<{ type: string; data: Record<string, unknown> }>;
  /** Facts about the run the runner measured (base sha, branch). */
  runPatch?: Partial<Pick<RunRecord, "baseSha" | "branch">>;
}

export interface RunArtifacts {
  /** Path (relative to the repo) of the committed run output. */
  runOutputPath: string | null;
  branch: string | null;
  headSha: string | null;
  events: Array<{ type: string; data: Record<string, unknown> }>;
}

/** Live reporting for the terminal, check runs and the sticky comment; never blocks the chain. */
export interface ChainObserver {
  /** Events right after they were journaled, in journal order. */
  events?(runId: string, events: RunEvent[]): void;
  /** Progress a runner reported for the step it is running. */
  progress?(runId: string, progress: StepProgress): void;
}

/** What the run's setup phase established before its first step. */
export interface RunPreparation {
  /** false: the run fails before any step, for `reasons`. */
  ok: boolean;
  reasons: string[];
  /** Facts the runner established (what setup ran, its output), journaled as events. */
  events: Array<{ type: string; data: Record<string, unknown> }>;
  runPatch?: Partial<Pick<RunRecord, "baseSha" | "branch">>;
}

/** Executes steps of a run. One instance serves many runs; state per run lives on disk. */
export interface StepRunner {
  /**
   * The run's setup phase, once, before its first step (the project's `setup:` commands, in a
   * writable box). Called again only when no step has started yet (a restart in between).
   * A runner without one has nothing to set up.
   */
  prepareRun?(input: {
    run: RunRecord;
    signal: AbortSignal;
    progress(progress: StepProgress): void;
  }): Promise<RunPreparation>;
  runStep(input: StepInput): Promise<StepResult>;
  /** After the last step (passed or not): write and push the run output. Idempotent. */
  finishRun(run: RunRecord, steps: StepRecord[]): Promise<RunArtifacts>;
}

export type { RunSnapshot };
