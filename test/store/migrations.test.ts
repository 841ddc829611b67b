import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JournalOpenError, JournalVersionError } from "../../src/store/errors.js";
import { APPLICATION_ID, MIGRATIONS, type Migration } from "../../src/store/migrations.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { makeRun, type TempDir, tempDir } from "./journal-fixtures.js";

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir("forge-migrate-");
});
afterEach(() => tmp.cleanup());

function userVersion(file: string): number {
  const raw = new Database(file, { readonly: true });
  try {
    return raw.pragma("user_version", { simple: true }) as number;
  } finally {
    raw.close();
  }
}

const addNote: Migration = {
  version: MIGRATIONS.length + 1,
  name: "test: runs get a note",
  sql: "ALTER TABLE runs ADD COLUMN note TEXT",
};

describe("journal migrations", () => {
  it("a journal of the first version gets run leases, its runs kept", async () => {
    const file = tmp.file("v1.db");
    const old = openJournal(file, { migrations: MIGRATIONS.slice(0, 1) });
    const { run, steps } = makeRun("run-old");
    await old.createRun(run, steps);
    await old.close();
    const j = openJournal(file);
    expect((await j.getRun("run-old"))?.id).toBe("run-old");
    const now = new Date().toISOString();
    expect(await j.leaseRun("run-old", "me", now, now)).toBe(true);
    await j.close();
    expect(userVersion(file)).toBe(MIGRATIONS.length);
  });

  it("creates a fresh file at the newest version, marked as a forgechain journal", async () => {
    const file = tmp.file("fresh.db");
    const j = openJournal(file);
    await j.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(raw.pragma("application_id", { simple: true })).toBe(APPLICATION_ID);
    raw.close();
  });

  it("migrates an older file forward and keeps its data", async () => {
    const file = tmp.file("old.db");
    const old = openJournal(file);
    const { run, steps } = makeRun("run-old");
    await old.createRun(run, steps);
    await old.close();
    expect(userVersion(file)).toBe(MIGRATIONS.length);

    const next = openJournal(file, { migrations: [...MIGRATIONS, addNote] });
    expect(await next.getRun("run-old")).toEqual(run);
    await next.close();
    expect(userVersion(file)).toBe(addNote.version);
    const raw = new Database(file, { readonly: true });
    const cols = (raw.pragma("table_info(runs)") as Array<{ name: string }>).map((c) => c.name);
    raw.close();
    expect(cols).toContain("note");
  });

  it("rolls a failing migration back: the file stays at its previous version", async () => {
    const file = tmp.file("broken.db");
    await openJournal(file).close();
    const broken: Migration = { ...addNote, sql: "ALTER TABLE runs ADD COLUMN x TEXT; NOT SQL" };
    expect(() => openJournal(file, { migrations: [...MIGRATIONS, broken] })).toThrow();
    expect(userVersion(file)).toBe(MIGRATIONS.length);
    const raw = new Database(file, { readonly: true });
    const cols = (raw.pragma("table_info(runs)") as Array<{ name: string }>).map((c) => c.name);
    raw.close();
    expect(cols).not.toContain("x");
    await openJournal(file).close();
  });

  it("refuses a file from a newer forgechain and leaves it untouched", () => {
    const file = tmp.file("newer.db");
    const j = openJournal(file, { migrations: [...MIGRATIONS, addNote] });
    void j.close();
    let error: unknown;
    try {
      openJournal(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(JournalVersionError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `schema version ${addNote.version}.*knows versions up to ${MIGRATIONS.length}.*upgrade`,
      ),
    );
    expect(userVersion(file)).toBe(addNote.version);
  });

  it("refuses a SQLite database that is not a forgechain journal, and a non-database", () => {
    const foreign = tmp.file("foreign.db");
    const raw = new Database(foreign);
    raw.exec("CREATE TABLE customers (id INTEGER)");
    raw.close();
    expect(() => openJournal(foreign)).toThrow(JournalOpenError);
    const garbage = tmp.file("garbage.db");
    writeFileSync(garbage, "this is not a database, just text that is long enough ".repeat(20));
    expect(() => openJournal(garbage)).toThrow(JournalOpenError);
  });

  it("refuses a migration list out of order", () => {
    const skip: Migration = { ...addNote, version: MIGRATIONS.length + 2 };
    expect(() => openJournal(tmp.file("x.db"), { migrations: [...MIGRATIONS, skip] })).toThrow(
      new RegExp(`expected ${MIGRATIONS.length + 1}`),
    );
  });
});
