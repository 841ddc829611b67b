// Versioned schema of the SQLite journal. The file's `PRAGMA user_version` is the schema version;
// each migration runs in its own transaction together with the version bump, so a crash mid-way
// leaves the file at the previous version, never half-migrated. Append new migrations at the end;
// never edit one that has shipped.
import type Database from "better-sqlite3";
import { JournalOpenError, JournalVersionError } from "./errors.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** "FRG1": marks the file as a forgechain journal so we never migrate someone else's database. */
export const APPLICATION_ID = 0x46524731;

// Append-only tables get triggers that RAISE on UPDATE and DELETE: history is never rewritten,
// not by a bug in this process and not by a hand-run `sqlite3` session.
function appendOnly(table: string): string {
  return `
CREATE TRIGGER ${table}_no_update BEFORE UPDATE ON ${table}
BEGIN SELECT RAISE(ABORT, '${table} is append-only: UPDATE refused'); END;
CREATE TRIGGER ${table}_no_delete BEFORE DELETE ON ${table}
BEGIN SELECT RAISE(ABORT, '${table} is append-only: DELETE refused'); END;`;
}

const RUN_STATES = "'queued','running','paused','passed','failed','cancelled'";
const STEP_STATES = "'queued','running','passed','failed','blocked'";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial journal",
    sql: `
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
) STRICT;
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
) STRICT;

CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id),
  type TEXT NOT NULL,
  data_json TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
CREATE INDEX events_by_run ON events (run_id, seq);
${appendOnly("events")}

CREATE TABLE feedback (
  run_id TEXT NOT NULL REFERENCES runs (id),
  id TEXT NOT NULL,
  role TEXT NOT NULL,
  attempt INTEGER NOT NULL CHECK (attempt BETWEEN 1 AND 4),
  disposition TEXT NOT NULL
    CHECK (disposition IN ('completed','failed','blocked','clarification')),
  canonical_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, id)
) STRICT;
${appendOnly("feedback")}

-- A request is open until a response for it exists: status is derived, so requests stay
-- append-only too.
CREATE TABLE requests (
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
) STRICT;
${appendOnly("requests")}

CREATE TABLE responses (
  run_id TEXT NOT NULL,
  id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  answer TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, id),
  UNIQUE (run_id, request_id),
  FOREIGN KEY (run_id, request_id) REFERENCES requests (run_id, id)
) STRICT;
${appendOnly("responses")}

CREATE TABLE seal_nonces (
  nonce TEXT PRIMARY KEY,
  expires_at TEXT NOT NULL,
  consumed_at TEXT NOT NULL
) STRICT;

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  seen_at TEXT NOT NULL
) STRICT;

CREATE TABLE box_proofs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  box_key TEXT NOT NULL,
  facts_json TEXT NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  checks_json TEXT NOT NULL,
  proved_at TEXT NOT NULL
) STRICT;
CREATE INDEX box_proofs_by_key ON box_proofs (box_key, id);
`,
  },
  {
    version: 2,
    name: "run leases",
    sql: `
-- Which process drives a run, until when (R10.2): taken and renewed by its driver, taken over
-- by another only once it expired. Mutable by design: a lease is a claim, not history.
CREATE TABLE run_leases (
  run_id TEXT PRIMARY KEY REFERENCES runs (id),
  owner TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
`,
  },
];

export interface MigrationResult {
  from: number;
  to: number;
}

/**
 * Bring `db` to the newest version in `migrations`. Refuses (JournalVersionError) a file newer
 * than this code knows — an older forgechain must not write into a schema it does not understand
 * — and (JournalOpenError) a non-empty database that is not a forgechain journal.
 */
export function migrate(
  db: Database.Database,
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationResult {
  checkOrder(migrations);
  const latest = migrations.at(-1)?.version ?? 0;
  const from = db.pragma("user_version", { simple: true }) as number;
  const appId = db.pragma("application_id", { simple: true }) as number;
  const tables = (
    db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get() as {
      n: number;
    }
  ).n;
  if (appId !== APPLICATION_ID && (from !== 0 || tables > 0)) {
    throw new JournalOpenError(file, "the file is a SQLite database but not a forgechain journal");
  }
  if (from > latest) throw new JournalVersionError(file, from, latest);
  for (const m of migrations) {
    if (m.version <= from) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return { from, to: Math.max(from, latest) };
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
    }
  });
}
