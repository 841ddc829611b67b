// Versioned schema of the PostgreSQL journal: the same tables as the SQLite one (migrations.ts),
// in the connection's schema. The version lives in `forge_schema`; each migration runs in one
// transaction with its version bump, under an advisory lock, so replicas starting together
// migrate once and a crash leaves the previous version, never half a migration. Append new
// migrations at the end; never edit one that has shipped.
import type { PoolClient } from "pg";
import { JournalOpenError, JournalVersionError } from "./errors.js";
import type { Migration } from "./migrations.js";

const RUN_STATES = "'queued','running','paused','passed','failed','cancelled'";
const STEP_STATES = "'queued','running','passed','failed','blocked'";
/** Any fixed number: the advisory lock every forgechain replica migrates under. */
const MIGRATION_LOCK = 0x46524731;

// History is never rewritten, not by a bug here and not by a hand-run psql session.
function appendOnly(table: string): string {
  return `
CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table}
  FOR EACH ROW EXECUTE FUNCTION forge_append_only();
CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION forge_append_only();`;
}

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial journal",
    sql: `
CREATE FUNCTION forge_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
END $$;

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  chain TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN (${RUN_STATES})),
  task_json TEXT NOT NULL,
  repo_json TEXT NOT NULL,
  base_sha TEXT,
  branch TEXT,
  snapshot_digest TEXT NOT NULL,
  snapshot_json TEXT NOT NULL,
  request_budget INTEGER NOT NULL CHECK (request_budget BETWEEN 1 AND 3),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX runs_by_state ON runs (state, created_at);

CREATE TABLE steps (
  run_id TEXT NOT NULL REFERENCES runs (id),
  idx INTEGER NOT NULL CHECK (idx >= 0),
  role TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN (${STEP_STATES})),
  attempt INTEGER NOT NULL CHECK (attempt BETWEEN 0 AND 4),
  decision_json TEXT,
  output_json TEXT,
  started_at TEXT,
  finished_at TEXT,
  PRIMARY KEY (run_id, idx)
);

CREATE TABLE events (
  seq BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id),
  type TEXT NOT NULL,
  data_json TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, seq);
${appendOnly("events")}

CREATE TABLE feedback (
  ord BIGSERIAL UNIQUE,
  run_id TEXT NOT NULL REFERENCES runs (id),
  id TEXT NOT NULL,
  role TEXT NOT NULL,
  attempt INTEGER NOT NULL CHECK (attempt BETWEEN 1 AND 4),
  disposition TEXT NOT NULL
    CHECK (disposition IN ('completed','failed','blocked','clarification')),
  canonical_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, id)
);
${appendOnly("feedback")}

CREATE TABLE requests (
  ord BIGSERIAL UNIQUE,
  run_id TEXT NOT NULL,
  id TEXT NOT NULL,
  feedback_id TEXT NOT NULL,
  role TEXT NOT NULL,
  kind TEXT NOT NULL,
  question TEXT NOT NULL,
  context TEXT NOT NULL,
  choices_json TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, id),
  FOREIGN KEY (run_id, feedback_id) REFERENCES feedback (run_id, id)
);
${appendOnly("requests")}

CREATE TABLE responses (
  ord BIGSERIAL UNIQUE,
  run_id TEXT NOT NULL,
  id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  answer TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, id),
  UNIQUE (run_id, request_id),
  FOREIGN KEY (run_id, request_id) REFERENCES requests (run_id, id)
);
${appendOnly("responses")}

CREATE TABLE seal_nonces (
  nonce TEXT PRIMARY KEY,
  expires_at TEXT NOT NULL,
  consumed_at TEXT NOT NULL
);

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  seen_at TEXT NOT NULL
);

CREATE TABLE box_proofs (
  id BIGSERIAL PRIMARY KEY,
  box_key TEXT NOT NULL,
  facts_json TEXT NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  checks_json TEXT NOT NULL,
  proved_at TEXT NOT NULL
);
CREATE INDEX box_proofs_by_key ON box_proofs (box_key, id);
`,
  },
  {
    version: 2,
    name: "run leases",
    sql: `
CREATE TABLE run_leases (
  run_id TEXT PRIMARY KEY REFERENCES runs (id),
  owner TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
`,
  },
];

/**
 * Bring the connection's schema to the newest version. Refuses (JournalVersionError) a schema
 * newer than this code knows, and (JournalOpenError) one holding a `runs` table that is not a
 * forgechain journal's.
 */
export async function migratePg(
  c: PoolClient,
  where: string,
  o: { schema?: string; migrations?: readonly Migration[] } = {},
): Promise<{ from: number; to: number }> {
  const migrations = o.migrations ?? PG_MIGRATIONS;
  const latest = migrations.at(-1)?.version ?? 0;
  await c.query("BEGIN");
  try {
    await c.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    // Under the lock: two replicas creating one schema at once would collide.
    if (o.schema) await c.query(`CREATE SCHEMA IF NOT EXISTS ${o.schema}`);
    const found = await c.query<{ marker: string | null; runs: string | null }>(
      "SELECT to_regclass('forge_schema')::text AS marker, to_regclass('runs')::text AS runs",
    );
    const { marker, runs } = found.rows[0] ?? { marker: null, runs: null };
    if (!marker && runs) {
      throw new JournalOpenError(where, "the database has a runs table that is not forgechain's");
    }
    if (!marker) {
      await c.query(
        "CREATE TABLE forge_schema (app TEXT NOT NULL CHECK (app = 'forgechain'), version INTEGER NOT NULL)",
      );
      await c.query("INSERT INTO forge_schema (app, version) VALUES ('forgechain', 0)");
    }
    const from = (await c.query<{ version: number }>("SELECT version FROM forge_schema")).rows[0]
      ?.version as number;
    if (from > latest) throw new JournalVersionError(where, from, latest);
    for (const m of migrations) {
      if (m.version <= from) continue;
      await c.query(m.sql);
      await c.query("UPDATE forge_schema SET version = $1", [m.version]);
    }
    await c.query("COMMIT");
    return { from, to: Math.max(from, latest) };
  } catch (error) {
    await c.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
