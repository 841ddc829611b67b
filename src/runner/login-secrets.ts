// A claude login (a credentials file, copied into each agent's HOME) is a model credential:
// its tokens are known secrets (src/secrets/known-secrets.ts). The CLI may refresh the token in
// the agent's copy, so that copy is read again after each step — without following a link
// and only as a small regular file (read-agent-file.ts: the agent decides what is there).
import { readFileSync } from "node:fs";
import { knownSecretsFromJson, registerKnownSecrets } from "../secrets/index.js";
import { readAgentFile } from "./read-agent-file.js";

const MAX_LOGIN_BYTES = 64 * 1024;

/** The deployment's own login file (read once when the runner starts). */
export function registerLoginFile(path: string): void {
  try {
    registerKnownSecrets(knownSecretsFromJson(readFileSync(path, "utf8")));
  } catch {
    // Unreadable: the agent's copy fails the same way, and no token reaches anyone.
  }
}

/** The agent's copy after its step, which may hold a refreshed token. */
export async function registerAgentLogin(path: string): Promise<void> {
  const file = await readAgentFile(path, MAX_LOGIN_BYTES);
  if (file.kind === "file") registerKnownSecrets(knownSecretsFromJson(file.text));
}
