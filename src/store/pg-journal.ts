// The journal on PostgreSQL (R10.2), for deployments that outgrow one host: the same JournalStore
// port and the same rules as the SQLite journal (feedback-rules.ts, the state machine), each
// method one transaction. Writes on a run first lock its row (SELECT … FOR UPDATE), so writers of
// one run queue behind each other as SQLite's single writer makes them; nonces and deliveries
// are claimed by their primary key (INSERT … ON CONFLICT DO NOTHING), so of two replicas exactly
// one wins.
import pg from "pg";
import { StaleStateError, UnknownRunError, UnknownStepError } from "../chain/errors.js";
import type { BoxProof, Clock, JournalStore, StoredRequest, Transition } from "../chain/ports.js";
import { assertRunTransition, assertStepTransition } from "../chain/state-machine.js";
import type {
  HumanResponse,
  RunEvent,
  RunRecord,
  RunState,
  StepRecord,
  WorkerFeedback,
} from "../chain/types.js";
import type { NewEvent } from "./feedback-rules.js";
import type { Migration } from "./migrations.js";
import { migratePg } from "./pg-migrations.js";
import * as side from "./pg-side-tables.js";
import {
  appendEvents,
  type Db,
  insertFeedback,
  insertResponse,
  insertRun,
  lockRun,
  patchRun,
  patchStep,
} from "./pg-writes.js";
import {
  type EventRow,
  eventFromRow,
  type RequestRow,
  type ResponseRow,
  type RunRow,
  requestFromRow,
  responseFromRow,
  runFromRow,
  type StepRow,
  stepFromRow,
} from "./rows.js";

export interface OpenPgJournalOptions {
  clock?: Clock;
  /** A schema of its own in the database (created when missing); default: the search path's. */
  schema?: string;
  /** Connections in the pool; default 10. */
  maxConnections?: number;
  /** Only for tests of the migration mechanism. */
  migrations?: readonly Migration[];
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** Connects lazily; the schema is migrated before the first query runs. */
export function openPgJournal(url: string, options: OpenPgJournalOptions = {}): PgJournal {
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA.test(schema)) {
    throw new TypeError(`not a schema name forgechain uses: ${JSON.stringify(schema)}`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    // The schema as a startup parameter: every connection has it before its first query.
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client's error (the server restarted) must not crash the process: the next query
  // gets a fresh connection, or its own error.
  pool.on("error", () => {});
  return new PgJournal(pool, options.clock ?? { now: () => new Date() }, redact(url), {
    ...(schema ? { schema } : {}),
    ...(options.migrations ? { migrations: options.migrations } : {}),
  });
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the DATABASE_URL";
  }
}

export class PgJournal implements JournalStore {
  private readonly ready: Promise<void>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    readonly where: string,
    setup: { schema?: string; migrations?: readonly Migration[] } = {},
  ) {
    this.ready = (async () => {
      const c = await pool.connect();
      try {
        await migratePg(c, this.where, setup);
      } finally {
        c.release();
      }
    })();
    // Awaited by every method; a failure is their failure, never an unhandled rejection.
    this.ready.catch(() => {});
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    await this.ready;
    return (await this.pool.query(sql, params)).rows as T[];
  }

  /** One transaction on one connection; rolled back when `fn` throws. */
  private async tx<T>(fn: (c: Db) => Promise<T>): Promise<T> {
    await this.ready;
    const c = await this.pool.connect();
    try {
      await c.query("BEGIN");
      const out = await fn(c);
      await c.query("COMMIT");
      return out;
    } catch (error) {
      await c.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      c.release();
    }
  }

  async createRun(run: RunRecord, steps: StepRecord[], events: NewEvent[] = []): Promise<void> {
    await this.tx(async (c) => {
      await insertRun(c, run, steps);
      await appendEvents(c, run.id, events, this.now());
    });
  }

  async getRun(id: string): Promise<RunRecord | null> {
    const [row] = await this.rows<RunRow>("SELECT * FROM runs WHERE id = $1", [id]);
    return row ? runFromRow(row) : null;
  }

  async listRuns(filter: { states?: RunState[]; limit?: number } = {}): Promise<RunRecord[]> {
    const states = filter.states ?? [];
    // LIMIT NULL is no limit.
    const rows = states.length
      ? await this.rows<RunRow>(
          "SELECT * FROM runs WHERE state = ANY($1) ORDER BY created_at, id LIMIT $2",
          [states, filter.limit ?? null],
        )
      : await this.rows<RunRow>("SELECT * FROM runs ORDER BY created_at, id LIMIT $1", [
          filter.limit ?? null,
        ]);
    return rows.map(runFromRow);
  }

  async recentRuns(limit: number): Promise<RunRecord[]> {
    const rows = await this.rows<RunRow>(
      "SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT $1",
      [limit],
    );
    return rows.reverse().map(runFromRow);
  }

  async getSteps(runId: string): Promise<StepRecord[]> {
    const rows = await this.rows<StepRow>("SELECT * FROM steps WHERE run_id = $1 ORDER BY idx", [
      runId,
    ]);
    return rows.map(stepFromRow);
  }

  async transition(runId: string, change: Transition): Promise<RunEvent[]> {
    return this.tx(async (c) => {
      const now = this.now();
      const run = await lockRun(c, runId);
      if (!run) throw new UnknownRunError(runId);
      const expect = change.expect ?? {};
      if (expect.runStates && !expect.runStates.includes(run.state as RunState)) {
        throw new StaleStateError(
          `run ${runId} is ${run.state}, expected ${expect.runStates.join(" or ")}`,
        );
      }
      if (change.run?.state !== undefined) {
        assertRunTransition(run.state as RunState, change.run.state);
      }
      let step: StepRow | undefined;
      if (change.step) {
        step = (
          await c.query("SELECT * FROM steps WHERE run_id = $1 AND idx = $2 FOR UPDATE", [
            runId,
            change.step.index,
          ])
        ).rows[0];
        if (!step) throw new UnknownStepError(runId, change.step.index);
        if (expect.stepAttempt !== undefined && step.attempt !== expect.stepAttempt) {
          throw new StaleStateError(
            `step ${step.idx} of run ${runId} is at attempt ${step.attempt}, expected ${expect.stepAttempt}`,
          );
        }
        const to = change.step.patch.state;
        if (to !== undefined) assertStepTransition(step.state as StepRecord["state"], to);
      } else if (expect.stepAttempt !== undefined) {
        throw new TypeError("expect.stepAttempt needs a step");
      }
      // Journal the feedback before the events that act on it (R6.2: journal before pausing).
      const feedbackEvents = change.feedback
        ? (await insertFeedback(c, runId, change.feedback, now)).events
        : [];
      if (change.step && step) await patchStep(c, step, change.step.patch);
      await patchRun(c, run, change.run ?? {}, now);
      return appendEvents(c, runId, [...feedbackEvents, ...change.events], now);
    });
  }

  async events(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    const rows = await this.rows<EventRow>(
      "SELECT * FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
      [runId, afterSeq],
    );
    return rows.map(event);
  }

  async lastEvents(runId: string, limit: number): Promise<RunEvent[]> {
    const rows = await this.rows<EventRow>(
      "SELECT * FROM events WHERE run_id = $1 ORDER BY seq DESC LIMIT $2",
      [runId, limit],
    );
    return rows.reverse().map(event);
  }

  async eventsOfType(runId: string, types: readonly string[]): Promise<RunEvent[]> {
    if (types.length === 0) return [];
    const rows = await this.rows<EventRow>(
      "SELECT * FROM events WHERE run_id = $1 AND type = ANY($2) ORDER BY seq",
      [runId, [...types]],
    );
    return rows.map(event);
  }

  async latestEvent(runId: string, type: string): Promise<RunEvent | null> {
    const [row] = await this.rows<EventRow>(
      "SELECT * FROM events WHERE run_id = $1 AND type = $2 ORDER BY seq DESC LIMIT 1",
      [runId, type],
    );
    return row ? event(row) : null;
  }

  async recordFeedback(runId: string, feedback: WorkerFeedback): Promise<"inserted" | "duplicate"> {
    return this.tx(async (c) => {
      const now = this.now();
      const outcome = await insertFeedback(c, runId, feedback, now);
      await appendEvents(c, runId, outcome.events, now);
      return outcome.result;
    });
  }

  async listFeedback(runId: string): Promise<WorkerFeedback[]> {
    const rows = await this.rows<{ canonical_json: string }>(
      "SELECT canonical_json FROM feedback WHERE run_id = $1 ORDER BY ord",
      [runId],
    );
    return rows.map((r) => {
      const { runId: _run, ...feedback } = JSON.parse(r.canonical_json);
      return feedback as WorkerFeedback;
    });
  }

  async listRequests(runId: string): Promise<StoredRequest[]> {
    const rows = await this.rows<RequestRow>(
      `SELECT q.*, EXISTS (SELECT 1 FROM responses r WHERE r.run_id = q.run_id
           AND r.request_id = q.id)::int AS answered
         FROM requests q WHERE q.run_id = $1 ORDER BY q.ord`,
      [runId],
    );
    return rows.map(requestFromRow);
  }

  async recordResponse(runId: string, response: HumanResponse): Promise<void> {
    await this.tx(async (c) => {
      const event = await insertResponse(c, runId, response);
      await appendEvents(c, runId, [event], this.now());
    });
  }

  async listResponses(runId: string): Promise<HumanResponse[]> {
    const rows = await this.rows<ResponseRow>(
      "SELECT * FROM responses WHERE run_id = $1 ORDER BY ord",
      [runId],
    );
    return rows.map(responseFromRow);
  }

  async consumeNonce(nonce: string, expiresAt: string): Promise<boolean> {
    await this.ready;
    return side.consumeNonce(this.pool, nonce, expiresAt, this.now());
  }

  async markDelivery(deliveryId: string): Promise<boolean> {
    await this.ready;
    return side.markDelivery(this.pool, deliveryId, this.now());
  }

  async leaseRun(runId: string, owner: string, now: string, expiresAt: string): Promise<boolean> {
    await this.ready;
    return side.leaseRun(this.pool, runId, owner, now, expiresAt);
  }

  async releaseRun(runId: string, owner: string): Promise<void> {
    await this.ready;
    await side.releaseRun(this.pool, runId, owner);
  }

  async saveProof(proof: BoxProof): Promise<void> {
    await this.ready;
    await side.saveProof(this.pool, proof);
  }

  async latestProof(boxKey: string): Promise<BoxProof | null> {
    await this.ready;
    return side.latestProof(this.pool, boxKey);
  }

  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.pool.end();
  }
}

/** BIGSERIAL comes back as a string: a JavaScript number holds 2^53 events, enough. */
function event(row: EventRow): RunEvent {
  return eventFromRow({ ...row, seq: Number(row.seq) });
}
