// The PostgreSQL journal's writes, each inside the caller's transaction (pg-journal.ts): the
// run's row lock, events, feedback and answers by the shared rules (feedback-rules.ts), patches.
import type pg from "pg";
import { validateFeedback } from "../chain/feedback.js";
import type { Transition } from "../chain/ports.js";
import type {
  HumanResponse,
  RunEvent,
  RunRecord,
  StepRecord,
  WorkerFeedback,
} from "../chain/types.js";
import { type NewEvent, planFeedback, planResponse } from "./feedback-rules.js";
import { type RunRow, type StepRow, toJson } from "./rows.js";

export type Db = Pick<pg.PoolClient, "query">;

/** The run's row, locked until the transaction ends: one writer per run at a time. */
export async function lockRun(c: Db, runId: string): Promise<RunRow | undefined> {
  return (await c.query("SELECT * FROM runs WHERE id = $1 FOR UPDATE", [runId])).rows[0];
}

export async function appendEvents(c: Db, runId: string, events: readonly NewEvent[], at: string) {
  const out: RunEvent[] = [];
  for (const e of events) {
    if (typeof e.type !== "string" || e.type === "") throw new TypeError("event type missing");
    const dataJson = JSON.stringify(e.data ?? {});
    const r = await c.query<{ seq: string }>(
      "INSERT INTO events (run_id, type, data_json, at) VALUES ($1, $2, $3, $4) RETURNING seq",
      [runId, e.type, dataJson, at],
    );
    out.push({
      seq: Number(r.rows[0]?.seq),
      runId,
      type: e.type,
      data: JSON.parse(dataJson),
      at,
    });
  }
  return out;
}

export async function insertFeedback(c: Db, runId: string, input: WorkerFeedback, now: string) {
  const feedback = validateFeedback(input);
  const run = await lockRun(c, runId);
  const one = async <T>(sql: string, params: unknown[]) =>
    (await c.query(sql, params)).rows[0] as T | undefined;
  const existing = await one<{ canonical_json: string }>(
    "SELECT canonical_json FROM feedback WHERE run_id = $1 AND id = $2",
    [runId, feedback.id],
  );
  const request = feedback.request;
  const owner = request
    ? await one<{ feedback_id: string }>(
        "SELECT feedback_id FROM requests WHERE run_id = $1 AND id = $2",
        [runId, request.id],
      )
    : undefined;
  const asked = await one<{ n: string }>("SELECT count(*) AS n FROM requests WHERE run_id = $1", [
    runId,
  ]);
  const plan = planFeedback(runId, feedback, {
    budget: run?.request_budget ?? null,
    existing: existing?.canonical_json ?? null,
    requestOwner: owner?.feedback_id ?? null,
    asked: Number(asked?.n ?? 0),
  });
  if (plan.result === "duplicate") return plan;
  await c.query(
    `INSERT INTO feedback (run_id, id, role, attempt, disposition, canonical_json, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [runId, feedback.id, feedback.role, feedback.attempt, feedback.disposition, plan.identity, now],
  );
  if (request) {
    await c.query(
      `INSERT INTO requests (run_id, id, feedback_id, role, kind, question, context,
         choices_json, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        runId,
        request.id,
        feedback.id,
        feedback.role,
        request.kind,
        request.question,
        request.context,
        toJson(request.choices),
        now,
      ],
    );
  }
  return plan;
}

/** An answer to an open request: the event that records it, or the typed error. */
export async function insertResponse(
  c: Db,
  runId: string,
  response: HumanResponse,
): Promise<NewEvent> {
  const has = async (sql: string, params: unknown[]) =>
    ((await c.query(sql, params)).rowCount ?? 0) > 0;
  const run = await lockRun(c, runId);
  const event = planResponse(runId, response, {
    run: run !== undefined,
    request: await has("SELECT 1 FROM requests WHERE run_id = $1 AND id = $2", [
      runId,
      response.requestId,
    ]),
    answered: await has("SELECT 1 FROM responses WHERE run_id = $1 AND request_id = $2", [
      runId,
      response.requestId,
    ]),
    idTaken: await has("SELECT 1 FROM responses WHERE run_id = $1 AND id = $2", [
      runId,
      response.id,
    ]),
  });
  await c.query(
    `INSERT INTO responses (run_id, id, request_id, actor, answer, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [runId, response.id, response.requestId, response.actor, response.answer, response.createdAt],
  );
  return event;
}

export async function patchStep(
  c: Db,
  row: StepRow,
  patch: NonNullable<Transition["step"]>["patch"],
) {
  const has = (k: keyof typeof patch) => Object.hasOwn(patch, k);
  await c.query(
    `UPDATE steps SET state = $1, attempt = $2, decision_json = $3, output_json = $4,
         started_at = $5, finished_at = $6 WHERE run_id = $7 AND idx = $8`,
    [
      patch.state ?? row.state,
      patch.attempt ?? row.attempt,
      has("decision") ? toJson(patch.decision) : row.decision_json,
      has("output") ? toJson(patch.output) : row.output_json,
      has("startedAt") ? (patch.startedAt ?? null) : row.started_at,
      has("finishedAt") ? (patch.finishedAt ?? null) : row.finished_at,
      row.run_id,
      row.idx,
    ],
  );
}

export async function patchRun(
  c: Db,
  row: RunRow,
  patch: NonNullable<Transition["run"]>,
  now: string,
) {
  const has = (k: keyof typeof patch) => Object.hasOwn(patch, k);
  await c.query(
    "UPDATE runs SET state = $1, base_sha = $2, branch = $3, updated_at = $4 WHERE id = $5",
    [
      patch.state ?? row.state,
      has("baseSha") ? (patch.baseSha ?? null) : row.base_sha,
      has("branch") ? (patch.branch ?? null) : row.branch,
      now,
      row.id,
    ],
  );
}

/** A new run and its steps. */
export async function insertRun(c: Db, run: RunRecord, steps: StepRecord[]): Promise<void> {
  await c.query(
    `INSERT INTO runs (id, chain, state, task_json, repo_json, base_sha, branch,
         snapshot_digest, snapshot_json, request_budget, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      run.id,
      run.chain,
      run.state,
      JSON.stringify(run.task),
      JSON.stringify(run.repo),
      run.baseSha,
      run.branch,
      run.snapshot.digest,
      JSON.stringify(run.snapshot.content),
      run.requestBudget,
      run.createdAt,
      run.updatedAt,
    ],
  );
  for (const s of steps) {
    if (s.runId !== run.id) throw new TypeError(`step ${s.index} belongs to run ${s.runId}`);
    await c.query(
      `INSERT INTO steps (run_id, idx, role, state, attempt, decision_json, output_json,
         started_at, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        run.id,
        s.index,
        s.role,
        s.state,
        s.attempt,
        toJson(s.decision),
        toJson(s.output),
        s.startedAt,
        s.finishedAt,
      ],
    );
  }
}
