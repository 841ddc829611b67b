import type { Decision } from "../roles/decision.js";
import type { ChainKind, Role } from "../roles/role-names.js";

export type RunState = "queued" | "running" | "paused" | "passed" | "failed" | "cancelled";
export type StepState = "queued" | "running" | "passed" | "failed" | "blocked";

export const TERMINAL_RUN_STATES: ReadonlySet<RunState> = new Set([
  "passed",
  "failed",
  "cancelled",
]);

/** The most attempts one step gets (R6.1: attempt 1–4). */
export const MAX_ATTEMPTS = 4;

/** What a run works on. All text fields are untrusted (SPEC §11). */
export interface TaskInput {
  title: string;
  body: string;
  /** Issue or PR number when the run came from GitHub. */
  number?: number;
}

/** Where a run's code comes from and goes to. */
export interface RepoRef {
  /** Local path or URL the runner clones from and pushes to. */
  remote: string;
  /** Base ref (branch or sha) as asked; the measured base sha is recorded on the run. */
  baseRef: string;
  /**
   * Review chains: the head to review (branch or sha). The workspace is checked out at the
   * head and the diff is taken from the merge base with `baseRef`. Change chains have none.
   */
  headRef?: string;
  /** owner/name on GitHub, when there is one. */
  fullName?: string;
}

/** R8.5: what a run froze when it started. */
export interface RunSnapshot {
  /** sha256 over the canonical JSON of `content`. */
  digest: string;
  content: Record<string, unknown>;
}

export interface RunRecord {
  id: string;
  chain: ChainKind;
  state: RunState;
  task: TaskInput;
  repo: RepoRef;
  /** Base commit the runner measured when it cloned (R5.2); null until measured. */
  baseSha: string | null;
  branch: string | null;
  snapshot: RunSnapshot;
  /** The most new questions this run may ask (1–3, R6.2). */
  requestBudget: number;
  createdAt: string;
  updatedAt: string;
}

export interface StepRecord {
  runId: string;
  /** Position in the chain, 0-based. */
  index: number;
  role: Role;
  state: StepState;
  attempt: number;
  decision: Decision | null;
  /** Schema-valid structured output, secrets redacted; null when there was none. */
  output: unknown;
  startedAt: string | null;
  finishedAt: string | null;
}

/** R6.1: a request a worker asks a human. */
export interface WorkerRequest {
  id: string;
  kind: string;
  question: string;
  context: string;
  choices?: string[];
}

export type Disposition = "completed" | "failed" | "blocked" | "clarification";

/** R6.1: typed worker feedback; blocked/clarification carry exactly one request. */
export interface WorkerFeedback {
  id: string;
  role: Role;
  task: string;
  attempt: number;
  disposition: Disposition;
  summary: string;
  evidence: string[];
  request?: WorkerRequest;
}

export interface HumanResponse {
  id: string;
  requestId: string;
  actor: string;
  answer: string;
  createdAt: string;
}

/** One line of the append-only event log. */
export interface RunEvent {
  seq: number;
  runId: string;
  type: string;
  data: Record<string, unknown>;
  at: string;
}
