import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ProviderName } from "./types.js";

export interface CredentialCheck {
  ok: boolean;
  /** The claude login file to copy into agent HOMEs, when that is the credential. */
  loginFile?: string;
  message?: string;
}

/**
 * The claude provider takes its endpoint and credential the way the CLI does:
 * ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN / CLAUDE_CODE_OAUTH_TOKEN, or the user's `claude`
 * login (~/.claude/.credentials.json, copied into each agent HOME with mode 0600).
 */
export function checkCredentials(
  provider: ProviderName,
  env: Record<string, string | undefined>,
): CredentialCheck {
  if (provider === "codex") {
    return env.OPENAI_API_KEY
      ? { ok: true }
      : { ok: false, message: "set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)" };
  }
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN || env.CLAUDE_CODE_OAUTH_TOKEN) {
    return { ok: true };
  }
  const login = join(env.HOME ?? homedir(), ".claude", ".credentials.json");
  if (existsSync(login)) return { ok: true, loginFile: login };
  return {
    ok: false,
    message:
      "no model credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN / CLAUDE_CODE_OAUTH_TOKEN; " +
      "ANTHROPIC_BASE_URL for another endpoint), or log in once with `claude` so " +
      "~/.claude/.credentials.json exists. `npx forge demo` runs without credentials.",
  };
}
