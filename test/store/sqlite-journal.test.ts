// The SQLite journal: the JournalStore contract on a real file, and what only SQLite has (WAL,
// synchronous=FULL, the schema version in user_version).
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/store/migrations.js";
import { openJournal, type SqliteJournal } from "../../src/store/sqlite-journal.js";
import { journalContract } from "./journal-contract.js";
import { type TempDir, tempDir } from "./journal-fixtures.js";

let tmp: TempDir | null = null;
let open: SqliteJournal | null = null;
const file = () => {
  tmp ??= tempDir();
  return tmp.file("journal.db");
};

journalContract("SQLite", {
  async open() {
    open = openJournal(file());
    return open;
  },
  async reopen() {
    await open?.close();
    open = openJournal(file());
    return open;
  },
  async exec(sql) {
    const raw = new Database(file());
    try {
      raw.pragma("foreign_keys = ON");
      raw.exec(sql);
    } finally {
      raw.close();
    }
  },
  async cleanup() {
    await open?.close();
    open = null;
    tmp?.cleanup();
    tmp = null;
  },
});

describe("opening", () => {
  it("uses WAL, synchronous=FULL, foreign keys and a busy timeout, at the newest schema", async () => {
    const t = tempDir();
    const f = t.file("journal.db");
    const journal = openJournal(f);
    try {
      expect(journal.settings()).toEqual({
        journalMode: "wal",
        synchronous: 2,
        foreignKeys: true,
        busyTimeoutMs: 5000,
      });
      const raw = new Database(f, { readonly: true });
      expect(raw.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
      raw.close();
    } finally {
      await journal.close();
      t.cleanup();
    }
  });
});
