// The journal a deployment opens: the one composition roots (`forge serve`, `forge run`, the
// CLI's commands) ask for. They get the JournalStore port, never a particular store, so the
// store behind it can change without them.
import { mkdirSync } from "node:fs";
import type { JournalStore } from "../chain/ports.js";
import { journalPath } from "./forge-home.js";
import { openJournal } from "./sqlite-journal.js";

export function openStore(forgeHome: string): JournalStore {
  mkdirSync(forgeHome, { recursive: true, mode: 0o700 });
  return openJournal(journalPath(forgeHome));
}
