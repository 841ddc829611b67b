import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** FORGE_HOME (default ~/.forge): the journal, workspaces and proofs. Created 0700. */
export function forgeHome(env: Record<string, string | undefined>): string {
  const dir = resolve(env.FORGE_HOME ?? join(homedir(), ".forge"));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function journalPath(home: string): string {
  return join(home, "journal.db");
}
