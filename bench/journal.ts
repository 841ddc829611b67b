// Journal throughput: events/s appended with the production settings, on SQLite (a real temp
// file, WAL, synchronous=FULL — one fsync per transaction) and on PostgreSQL (a durable server
// the bench starts on loopback). Two shapes: one transition per event (how the engine writes:
// every state change is its own durable commit) and batched transitions (100 events per
// commit, e.g. a step's transcript).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JournalStore } from "../src/chain/ports.js";
import { freezeSnapshot } from "../src/chain/snapshot.js";
import type { RunRecord, StepRecord } from "../src/chain/types.js";
import { openPgJournal } from "../src/store/pg-journal.js";
import { openJournal } from "../src/store/sqlite-journal.js";
import { startPostgres } from "../test/harness/postgres.js";

const SINGLE_EVENTS = 2000;
const BATCHES = 40;
const BATCH_SIZE = 100;

function newRun(id: string): { run: RunRecord; steps: StepRecord[] } {
  const at = new Date().toISOString();
  return {
    run: {
      id,
      chain: "review",
      state: "running",
      task: { title: "bench", body: "" },
      repo: { remote: "/tmp/bench", baseRef: "main" },
      baseSha: null,
      branch: null,
      snapshot: freezeSnapshot({ provider: "bench" }),
      requestBudget: 1,
      createdAt: at,
      updatedAt: at,
    },
    steps: [
      {
        runId: id,
        index: 0,
        role: "reviewer",
        state: "queued",
        attempt: 0,
        decision: null,
        output: null,
        startedAt: null,
        finishedAt: null,
      },
    ],
  };
}

/** Appends on `journal` in both shapes; fails unless every event was stored. */
async function measure(journal: JournalStore): Promise<object> {
  const { run, steps } = newRun("bench-run");
  await journal.createRun(run, steps);
  const data = { tool: "Bash", command: "npm test", exitCode: 0, note: "x".repeat(120) };

  let t0 = performance.now();
  for (let i = 0; i < SINGLE_EVENTS; i++) {
    await journal.transition(run.id, {
      step: { index: 0, patch: { output: { i } } },
      events: [{ type: "tool.used", data: { ...data, i } }],
    });
  }
  const singleSec = (performance.now() - t0) / 1000;

  t0 = performance.now();
  for (let b = 0; b < BATCHES; b++) {
    const events = Array.from({ length: BATCH_SIZE }, (_, i) => ({
      type: "transcript.line",
      data: { ...data, i: b * BATCH_SIZE + i },
    }));
    await journal.transition(run.id, { events });
  }
  const batchSec = (performance.now() - t0) / 1000;
  const total = (await journal.events(run.id)).length;
  if (total !== SINGLE_EVENTS + BATCHES * BATCH_SIZE) {
    throw new Error(
      `the journal holds ${total} events, not ${SINGLE_EVENTS + BATCHES * BATCH_SIZE}`,
    );
  }
  return {
    single: {
      events: SINGLE_EVENTS,
      seconds: round(singleSec),
      eventsPerSec: Math.round(SINGLE_EVENTS / singleSec),
      msPerCommit: round((singleSec * 1000) / SINGLE_EVENTS),
    },
    batch: {
      events: BATCHES * BATCH_SIZE,
      batchSize: BATCH_SIZE,
      seconds: round(batchSec),
      eventsPerSec: Math.round((BATCHES * BATCH_SIZE) / batchSec),
      msPerCommit: round((batchSec * 1000) / BATCHES),
    },
    eventsStored: total,
  };
}

export async function benchJournal(): Promise<object> {
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-journal-"));
  // A durable server (fsync on, synchronous commit), as a deployment runs it, on this machine.
  const server = await startPostgres({ durable: true });
  try {
    const sqliteJournal = openJournal(join(dir, "journal.db"));
    const settings = sqliteJournal.settings();
    const sqlite = await measure(sqliteJournal);
    const integrity = sqliteJournal.integrityCheck();
    await sqliteJournal.close();
    const pgJournal = openPgJournal(await server.createDatabase("forge_bench"));
    const postgresql = await measure(pgJournal);
    await pgJournal.close();
    const ms = (r: object) => (r as { single: { msPerCommit: number } }).single.msPerCommit;
    return {
      bench: "journal",
      dir: tmpdir(),
      sqlite: { settings, ...sqlite, integrity },
      postgresql: { server: "loopback, fsync on, synchronous_commit on", ...postgresql },
      postgresql_vs_sqlite_ms_per_commit: round(ms(postgresql) / ms(sqlite)),
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchJournal(), null, 2));
}
