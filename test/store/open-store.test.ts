// Which journal a deployment opens: SQLite under FORGE_HOME, or PostgreSQL when DATABASE_URL
// names a server — a real one the test starts — shared by every store opened with it; a
// DATABASE_URL forgechain cannot use is a clear error before anything is written.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStore, openStore, StoreConfigError } from "../../src/store/open-store.js";
import { PgJournal } from "../../src/store/pg-journal.js";
import { SqliteJournal } from "../../src/store/sqlite-journal.js";
import { type PostgresServer, startPostgres } from "../harness/postgres.js";
import { makeRun, tempDir } from "./journal-fixtures.js";

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("forge_open_store");
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("openStore", () => {
  it("without DATABASE_URL: the SQLite journal in FORGE_HOME", async () => {
    const t = tempDir();
    const home = join(t.dir, "forge-home");
    const store = openStore(home, {});
    expect(store).toBeInstanceOf(SqliteJournal);
    expect(existsSync(join(home, "journal.db"))).toBe(true);
    expect(describeStore(home, {})).toBe(`SQLite at ${join(home, "journal.db")}`);
    await store.close();
    t.cleanup();
  });

  it("with DATABASE_URL: PostgreSQL, one journal for every store opened with it", async () => {
    const t = tempDir();
    const env = { DATABASE_URL: url };
    const a = openStore(join(t.dir, "a"), env);
    const b = openStore(join(t.dir, "b"), env);
    expect(a).toBeInstanceOf(PgJournal);
    const { run, steps } = makeRun("run-shared");
    await a.createRun(run, steps, [{ type: "run.created", data: {} }]);
    expect((await b.getRun("run-shared"))?.id).toBe("run-shared");
    // Nothing was written to FORGE_HOME: the journal is the server's.
    expect(existsSync(join(t.dir, "a", "journal.db"))).toBe(false);
    const shown = describeStore("/x", {
      DATABASE_URL: url.replace("postgres@", "postgres:pw-not-real@"),
    });
    expect(shown).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/forge_open_store$/);
    await Promise.all([a.close(), b.close()]);
    t.cleanup();
  });

  it("a DATABASE_URL that is not PostgreSQL's: a clear error, nothing opened", () => {
    for (const [given, says] of [
      ["mysql://db.example/forge", /must be a postgres:\/\/ URL \(got mysql:\/\/…\)/],
      ["not a url at all", /DATABASE_URL is not a URL/],
    ] as const) {
      const t = tempDir();
      const home = join(t.dir, "home");
      expect(() => openStore(home, { DATABASE_URL: given })).toThrow(StoreConfigError);
      expect(() => openStore(home, { DATABASE_URL: given })).toThrow(says);
      expect(existsSync(home)).toBe(false);
      t.cleanup();
    }
  });
});
