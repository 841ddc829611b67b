// The embedded journal (R10.1): one SQLite file in WAL mode. better-sqlite3 is synchronous; each
// method does its work in one transaction and the async wrapper only exists so that a
// PostgreSQL store fits the same JournalStore port.
import Database from "better-sqlite3";
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
import { JournalOpenError } from "./errors.js";
import { insertFeedback, insertResponse, type NewEvent } from "./feedback-writes.js";
import { type Migration, migrate } from "./migrations.js";
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
  toJson,
} from "./rows.js";
import * as side from "./side-tables.js";

export interface OpenJournalOptions {
  clock?: Clock;
  /** Only for tests of the migration mechanism. */
  migrations?: readonly Migration[];
  /** How long a writer waits for another connection's lock; default 5000 ms. */
  busyTimeoutMs?: number;
}

/**
 * Open (creating or migrating) the journal at `file`. `:memory:` is for unit tests only: it
 * has no durability at all.
 */
export function openJournal(file: string, options: OpenJournalOptions = {}): SqliteJournal {
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (err) {
    throw new JournalOpenError(file, (err as Error).message);
  }
  try {
    // WAL: readers never block the writer and a commit is one sequential append.
    const mode = db.pragma("journal_mode = WAL", { simple: true });
    if (mode !== "wal" && file !== ":memory:") {
      throw new JournalOpenError(file, `the file system refused WAL mode (got ${String(mode)})`);
    }
    // FULL, not NORMAL: in WAL mode NORMAL already survives a kill -9 of this process (the
    // kernel holds the written pages), but a commit may be lost on power loss or a kernel crash
    // because the WAL is only fsynced at checkpoints. FULL fsyncs the WAL at every commit, so an
    // event we acknowledged (and perhaps posted to GitHub) is on disk. Cost: one fsync per
    // transaction — see bench/journal.ts.
    db.pragma("synchronous = FULL");
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma("foreign_keys = ON");
    migrate(db, file, options.migrations);
  } catch (err) {
    db.close();
    if (err instanceof Error && "code" in err && String(err.code).startsWith("SQLITE_")) {
      throw new JournalOpenError(file, err.message);
    }
    throw err;
  }
  return new SqliteJournal(db, options.clock ?? { now: () => new Date() });
}

export class SqliteJournal implements JournalStore {
  constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
  ) {}

  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared statements are cached: preparing costs more than most of our queries. */
  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** One IMMEDIATE transaction: takes the write lock up front so two writers never deadlock. */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private append(runId: string, events: readonly NewEvent[], at: string): RunEvent[] {
    const insert = this.stmt(
      "INSERT INTO events (run_id, type, data_json, at) VALUES (?, ?, ?, ?)",
    );
    return events.map((e) => {
      if (typeof e.type !== "string" || e.type === "") throw new TypeError("event type missing");
      const dataJson = JSON.stringify(e.data ?? {});
      const info = insert.run(runId, e.type, dataJson, at);
      return {
        seq: Number(info.lastInsertRowid),
        runId,
        type: e.type,
        data: JSON.parse(dataJson),
        at,
      };
    });
  }

  async createRun(run: RunRecord, steps: StepRecord[], events: NewEvent[] = []): Promise<void> {
    this.write(() => {
      this.stmt(
        `INSERT INTO runs (id, chain, state, task_json, repo_json, base_sha, branch,
             snapshot_digest, snapshot_json, request_budget, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
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
      );
      const insertStep = this.stmt(
        `INSERT INTO steps (run_id, idx, role, state, attempt, decision_json, output_json,
           started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const s of steps) {
        if (s.runId !== run.id) throw new TypeError(`step ${s.index} belongs to run ${s.runId}`);
        insertStep.run(
          run.id,
          s.index,
          s.role,
          s.state,
          s.attempt,
          toJson(s.decision),
          toJson(s.output),
          s.startedAt,
          s.finishedAt,
        );
      }
      this.append(run.id, events, this.now());
    });
  }

  async getRun(id: string): Promise<RunRecord | null> {
    const row = this.stmt("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
    return row ? runFromRow(row) : null;
  }

  async listRuns(filter: { states?: RunState[]; limit?: number } = {}): Promise<RunRecord[]> {
    const states = filter.states ?? [];
    const where = states.length ? `WHERE state IN (${states.map(() => "?").join(",")})` : "";
    const limit = filter.limit ?? -1;
    const rows = this.stmt(`SELECT * FROM runs ${where} ORDER BY created_at, id LIMIT ?`).all(
      ...states,
      limit,
    ) as RunRow[];
    return rows.map(runFromRow);
  }

  /** The `limit` most recent runs, oldest of them first. */
  async recentRuns(limit: number): Promise<RunRecord[]> {
    const rows = this.stmt("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT ?").all(
      limit,
    ) as RunRow[];
    return rows.reverse().map(runFromRow);
  }

  async getSteps(runId: string): Promise<StepRecord[]> {
    const rows = this.stmt("SELECT * FROM steps WHERE run_id = ? ORDER BY idx").all(
      runId,
    ) as StepRow[];
    return rows.map(stepFromRow);
  }

  async transition(runId: string, change: Transition): Promise<RunEvent[]> {
    return this.write(() => {
      const now = this.now();
      const run = this.stmt("SELECT * FROM runs WHERE id = ?").get(runId) as RunRow | undefined;
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
        step = this.stmt("SELECT * FROM steps WHERE run_id = ? AND idx = ?").get(
          runId,
          change.step.index,
        ) as StepRow | undefined;
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
        ? insertFeedback(this.db, runId, change.feedback, now).events
        : [];
      if (change.step && step) this.patchStep(step, change.step.patch);
      this.patchRun(run, change.run ?? {}, now);
      return this.append(runId, [...feedbackEvents, ...change.events], now);
    });
  }

  private patchStep(row: StepRow, patch: NonNullable<Transition["step"]>["patch"]): void {
    const has = (k: keyof typeof patch) => Object.hasOwn(patch, k);
    this.stmt(
      `UPDATE steps SET state = ?, attempt = ?, decision_json = ?, output_json = ?,
           started_at = ?, finished_at = ? WHERE run_id = ? AND idx = ?`,
    ).run(
      patch.state ?? row.state,
      patch.attempt ?? row.attempt,
      has("decision") ? toJson(patch.decision) : row.decision_json,
      has("output") ? toJson(patch.output) : row.output_json,
      has("startedAt") ? (patch.startedAt ?? null) : row.started_at,
      has("finishedAt") ? (patch.finishedAt ?? null) : row.finished_at,
      row.run_id,
      row.idx,
    );
  }

  private patchRun(row: RunRow, patch: NonNullable<Transition["run"]>, now: string): void {
    const has = (k: keyof typeof patch) => Object.hasOwn(patch, k);
    this.stmt(
      "UPDATE runs SET state = ?, base_sha = ?, branch = ?, updated_at = ? WHERE id = ?",
    ).run(
      patch.state ?? row.state,
      has("baseSha") ? (patch.baseSha ?? null) : row.base_sha,
      has("branch") ? (patch.branch ?? null) : row.branch,
      now,
      row.id,
    );
  }

  async events(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    const rows = this.stmt("SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq").all(
      runId,
      afterSeq,
    ) as EventRow[];
    return rows.map(eventFromRow);
  }

  async lastEvents(runId: string, limit: number): Promise<RunEvent[]> {
    const rows = this.stmt("SELECT * FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT ?").all(
      runId,
      limit,
    ) as EventRow[];
    return rows.reverse().map(eventFromRow);
  }

  /** The run's events of these types, oldest first (the transcripts, the driver records). */
  async eventsOfType(runId: string, types: readonly string[]): Promise<RunEvent[]> {
    if (types.length === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT * FROM events WHERE run_id = ? AND type IN (${types.map(() => "?").join(",")}) ORDER BY seq`,
      )
      .all(runId, ...types) as EventRow[];
    return rows.map(eventFromRow);
  }

  /** The run's last event of this type, or null. */
  async latestEvent(runId: string, type: string): Promise<RunEvent | null> {
    const row = this.stmt(
      "SELECT * FROM events WHERE run_id = ? AND type = ? ORDER BY seq DESC LIMIT 1",
    ).get(runId, type) as EventRow | undefined;
    return row ? eventFromRow(row) : null;
  }

  async recordFeedback(runId: string, feedback: WorkerFeedback): Promise<"inserted" | "duplicate"> {
    return this.write(() => {
      const now = this.now();
      const outcome = insertFeedback(this.db, runId, feedback, now);
      this.append(runId, outcome.events, now);
      return outcome.result;
    });
  }

  async listFeedback(runId: string): Promise<WorkerFeedback[]> {
    const rows = this.stmt(
      "SELECT canonical_json FROM feedback WHERE run_id = ? ORDER BY rowid",
    ).all(runId) as Array<{ canonical_json: string }>;
    return rows.map((r) => {
      const { runId: _run, ...feedback } = JSON.parse(r.canonical_json);
      return feedback as WorkerFeedback;
    });
  }

  async listRequests(runId: string): Promise<StoredRequest[]> {
    const rows = this.stmt(
      `SELECT q.*, EXISTS (SELECT 1 FROM responses r WHERE r.run_id = q.run_id
           AND r.request_id = q.id) AS answered
         FROM requests q WHERE q.run_id = ? ORDER BY q.rowid`,
    ).all(runId) as RequestRow[];
    return rows.map(requestFromRow);
  }

  async recordResponse(runId: string, response: HumanResponse): Promise<void> {
    this.write(() => {
      const event = insertResponse(this.db, runId, response);
      this.append(runId, [event], this.now());
    });
  }

  async listResponses(runId: string): Promise<HumanResponse[]> {
    const rows = this.stmt("SELECT * FROM responses WHERE run_id = ? ORDER BY rowid").all(
      runId,
    ) as ResponseRow[];
    return rows.map(responseFromRow);
  }

  async consumeNonce(nonce: string, expiresAt: string): Promise<boolean> {
    return this.write(() => side.consumeNonce(this.db, nonce, expiresAt, this.now()));
  }

  async markDelivery(deliveryId: string): Promise<boolean> {
    return this.write(() => side.markDelivery(this.db, deliveryId, this.now()));
  }

  async leaseRun(runId: string, owner: string, now: string, expiresAt: string): Promise<boolean> {
    return this.write(() => side.leaseRun(this.db, runId, owner, now, expiresAt));
  }

  async releaseRun(runId: string, owner: string): Promise<void> {
    this.write(() => side.releaseRun(this.db, runId, owner));
  }

  async saveProof(proof: BoxProof): Promise<void> {
    this.write(() => side.saveProof(this.db, proof));
  }

  async latestProof(boxKey: string): Promise<BoxProof | null> {
    return side.latestProof(this.db, boxKey);
  }

  /** The connection's durability settings, as SQLite reports them. */
  settings(): {
    journalMode: string;
    synchronous: number;
    foreignKeys: boolean;
    busyTimeoutMs: number;
  } {
    return {
      journalMode: String(this.db.pragma("journal_mode", { simple: true })),
      // 2 = FULL
      synchronous: Number(this.db.pragma("synchronous", { simple: true })),
      foreignKeys: this.db.pragma("foreign_keys", { simple: true }) === 1,
      busyTimeoutMs: Number(this.db.pragma("busy_timeout", { simple: true })),
    };
  }

  /** `PRAGMA integrity_check`: "ok" or the first problems found. */
  integrityCheck(): string {
    const rows = this.db.pragma("integrity_check") as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join("\n");
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
