// Row shapes of the SQLite journal and their mapping to the domain types.
import type { BoxProof, StoredRequest } from "../chain/ports.js";
import type {
  HumanResponse,
  RunEvent,
  RunRecord,
  RunState,
  StepRecord,
  StepState,
} from "../chain/types.js";
import type { ChainKind, Role } from "../roles/role-names.js";

export interface RunRow {
  id: string;
  chain: string;
  state: string;
  task_json: string;
  repo_json: string;
  base_sha: string | null;
  branch: string | null;
  snapshot_digest: string;
  snapshot_json: string;
  request_budget: number;
  created_at: string;
  updated_at: string;
}

export interface StepRow {
  run_id: string;
  idx: number;
  role: string;
  state: string;
  attempt: number;
  decision_json: string | null;
  output_json: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface EventRow {
  seq: number;
  run_id: string;
  type: string;
  data_json: string;
  at: string;
}

export interface RequestRow {
  run_id: string;
  id: string;
  feedback_id: string;
  role: string;
  kind: string;
  question: string;
  context: string;
  choices_json: string | null;
  created_at: string;
  answered: number;
}

export interface ResponseRow {
  run_id: string;
  id: string;
  request_id: string;
  actor: string;
  answer: string;
  created_at: string;
}

export interface ProofRow {
  box_key: string;
  facts_json: string;
  ok: number;
  checks_json: string;
  proved_at: string;
}

/** JSON column helpers: SQL NULL stands for a missing (null/undefined) value. */
export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export function runFromRow(row: RunRow): RunRecord {
  return {
    id: row.id,
    chain: row.chain as ChainKind,
    state: row.state as RunState,
    task: JSON.parse(row.task_json),
    repo: JSON.parse(row.repo_json),
    baseSha: row.base_sha,
    branch: row.branch,
    snapshot: { digest: row.snapshot_digest, content: JSON.parse(row.snapshot_json) },
    requestBudget: row.request_budget,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function stepFromRow(row: StepRow): StepRecord {
  return {
    runId: row.run_id,
    index: row.idx,
    role: row.role as Role,
    state: row.state as StepState,
    attempt: row.attempt,
    decision: fromJson(row.decision_json),
    output: fromJson(row.output_json),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

export function eventFromRow(row: EventRow): RunEvent {
  return {
    seq: row.seq,
    runId: row.run_id,
    type: row.type,
    data: JSON.parse(row.data_json),
    at: row.at,
  };
}

export function requestFromRow(row: RequestRow): StoredRequest {
  const choices = fromJson<string[]>(row.choices_json);
  return {
    id: row.id,
    kind: row.kind,
    question: row.question,
    context: row.context,
    ...(choices ? { choices } : {}),
    runId: row.run_id,
    role: row.role as Role,
    feedbackId: row.feedback_id,
    status: row.answered ? "answered" : "pending",
    createdAt: row.created_at,
  };
}

export function responseFromRow(row: ResponseRow): HumanResponse {
  return {
    id: row.id,
    requestId: row.request_id,
    actor: row.actor,
    answer: row.answer,
    createdAt: row.created_at,
  };
}

export function proofFromRow(row: ProofRow): BoxProof {
  return {
    boxKey: row.box_key,
    facts: JSON.parse(row.facts_json),
    ok: row.ok === 1,
    checks: JSON.parse(row.checks_json),
    provedAt: row.proved_at,
  };
}
