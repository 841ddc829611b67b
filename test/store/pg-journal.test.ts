// The PostgreSQL journal on a real server the test starts (the Debian package's initdb and
// pg_ctl, a throwaway cluster): the JournalStore contract, each test in a schema of its own, and
// what only a shared database has — several stores (replicas) at once, one migration for all.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaleStateError } from "../../src/chain/errors.js";
import { JournalOpenError, JournalVersionError } from "../../src/store/errors.js";
import { openPgJournal, type PgJournal } from "../../src/store/pg-journal.js";
import { PG_MIGRATIONS } from "../../src/store/pg-migrations.js";
import { type PostgresServer, startPostgres } from "../harness/postgres.js";
import { journalContract } from "./journal-contract.js";
import { makeRun } from "./journal-fixtures.js";

let server: PostgresServer;
let url: string;
let schemas = 0;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("forge_contract");
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

async function sql(schema: string, text: string, params: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`SET search_path TO ${schema}`);
    return await c.query(text, params);
  } finally {
    await c.end();
  }
}

let current: { schema: string; journal: PgJournal | null } = { schema: "", journal: null };

journalContract("PostgreSQL", {
  async open() {
    current = { schema: `t${++schemas}`, journal: null };
    current.journal = openPgJournal(url, { schema: current.schema });
    // The schema is made on first use: make it now, as a SQLite file is made on open.
    await current.journal.listRuns({ limit: 1 });
    return current.journal;
  },
  async reopen() {
    await current.journal?.close();
    current.journal = openPgJournal(url, { schema: current.schema });
    return current.journal;
  },
  async exec(text) {
    await sql(current.schema, text);
  },
  async cleanup() {
    await current.journal?.close();
    await sql("public", `DROP SCHEMA IF EXISTS ${current.schema} CASCADE`);
  },
});

describe("PostgreSQL: several stores on one database (replicas)", () => {
  it("migrate once when they open together, to the newest version", async () => {
    const schema = `r${++schemas}`;
    const stores = Array.from({ length: 5 }, () => openPgJournal(url, { schema }));
    await Promise.all(stores.map((s) => s.listRuns()));
    const { rows } = await sql(schema, "SELECT version FROM forge_schema");
    expect(rows).toEqual([{ version: PG_MIGRATIONS.length }]);
    await Promise.all(stores.map((s) => s.close()));
  });

  it("a nonce and a delivery are claimed once, whichever store asks, however many at once", async () => {
    const schema = `r${++schemas}`;
    const stores = Array.from({ length: 4 }, () => openPgJournal(url, { schema }));
    const nonces = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        stores[i % 4]?.consumeNonce("seal-n1", "2099-01-01T00:00:00Z"),
      ),
    );
    expect(nonces.filter((x) => x === true)).toHaveLength(1);
    const deliveries = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stores[i % 4]?.markDelivery("delivery-1")),
    );
    expect(deliveries.filter((x) => x === true)).toHaveLength(1);
    await Promise.all(stores.map((s) => s.close()));
  });

  it("of two stores starting the same step attempt at once, exactly one does", async () => {
    const schema = `r${++schemas}`;
    const [a, b] = [openPgJournal(url, { schema }), openPgJournal(url, { schema })];
    const { run, steps } = makeRun("run-1");
    await a.createRun(run, steps, [{ type: "run.created", data: {} }]);
    await a.transition("run-1", { run: { state: "running" }, events: [] });
    const start = (store: PgJournal) =>
      store.transition("run-1", {
        step: { index: 0, patch: { state: "running", attempt: 1 } },
        events: [{ type: "step.started", data: { index: 0, attempt: 1 } }],
        expect: { runStates: ["running"], stepAttempt: 0 },
      });
    const results = await Promise.allSettled([start(a), start(b), start(a), start(b)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StaleStateError);
    }
    const started = (await b.events("run-1")).filter((e) => e.type === "step.started");
    expect(started).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
  });
});

describe("PostgreSQL: replicas share runs through leases", () => {
  it("of replicas racing for a run's lease on their own connections, exactly one holds it", async () => {
    const schema = `r${++schemas}`;
    const replicas = Array.from({ length: 4 }, () => openPgJournal(url, { schema }));
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    for (let round = 0; round < 10; round++) {
      const { run, steps } = makeRun(`run-${round}`);
      await replicas[0]?.createRun(run, steps, [{ type: "run.created", data: {} }]);
      const won = await Promise.all(
        replicas.map((r, i) => r.leaseRun(`run-${round}`, `replica-${i}`, now, later)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
    }
    await Promise.all(replicas.map((r) => r.close()));
  });
});

describe("PostgreSQL: what it will not open", () => {
  it("a schema newer than this forgechain knows is left untouched, with a clear error", async () => {
    const schema = `r${++schemas}`;
    const first = openPgJournal(url, { schema });
    await first.listRuns();
    await first.close();
    await sql(schema, "UPDATE forge_schema SET version = 99");
    const again = openPgJournal(url, { schema });
    await expect(again.listRuns()).rejects.toBeInstanceOf(JournalVersionError);
    await again.close();
  });

  it("a database whose runs table is someone else's", async () => {
    const schema = `r${++schemas}`;
    await sql("public", `CREATE SCHEMA ${schema}`);
    await sql(schema, "CREATE TABLE runs (id int)");
    const store = openPgJournal(url, { schema });
    await expect(store.getRun("x")).rejects.toBeInstanceOf(JournalOpenError);
    await store.close();
  });

  it("a wrong password never shows in the error", async () => {
    const store = openPgJournal(
      url.replace("postgres@", "postgres:s3cret-not-real@").replace(/\/[^/]+$/, "/nodb"),
    );
    const error = await store.listRuns().catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(store.where).not.toContain("s3cret-not-real");
    await store.close();
  });
});
