// The journal a deployment opens: the one composition roots (`forge serve`, `forge run`, the
// CLI's commands) ask for. They get the JournalStore port, never a particular store: SQLite in
// FORGE_HOME by default, PostgreSQL when DATABASE_URL names a server (several `forge serve`
// replicas share one).
import { mkdirSync } from "node:fs";
import type { JournalStore } from "../chain/ports.js";
import { journalPath } from "./forge-home.js";
import { openPgJournal } from "./pg-journal.js";
import { openJournal } from "./sqlite-journal.js";

/** DATABASE_URL is set but is not a PostgreSQL URL forgechain can use. */
export class StoreConfigError extends Error {
  override readonly name = "StoreConfigError";
}

export function openStore(
  forgeHome: string,
  env: Record<string, string | undefined> = {},
): JournalStore {
  const url = env.DATABASE_URL?.trim();
  if (url) return openPgJournal(checkedUrl(url));
  mkdirSync(forgeHome, { recursive: true, mode: 0o700 });
  return openJournal(journalPath(forgeHome));
}

/** Which journal `openStore` would open, in words for the terminal (never the password). */
export function describeStore(forgeHome: string, env: Record<string, string | undefined>): string {
  const url = env.DATABASE_URL?.trim();
  if (!url) return `SQLite at ${journalPath(forgeHome)}`;
  const u = new URL(checkedUrl(url));
  return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreConfigError(
      "DATABASE_URL is not a URL: give postgres://user:password@host:5432/database, or unset it to keep the journal in SQLite under FORGE_HOME",
    );
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new StoreConfigError(
      `DATABASE_URL must be a postgres:// URL (got ${parsed.protocol}//…): forgechain's shared journal is PostgreSQL; unset it to keep the journal in SQLite under FORGE_HOME`,
    );
  }
  return url;
}
