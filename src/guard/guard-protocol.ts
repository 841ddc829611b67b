// The in-box guard server's wire format (see guard-server.ts). One request per connection:
// the client writes one JSON object and half-closes; the server answers one JSON object and
// closes. The client trusts an answer only when it has exactly the shape of a guard decision;
// anything else makes it decide in its own process instead.

/** Requests and answers larger than this are refused (a hook's input is a few KB). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface GuardRequest {
  readonly v: 1;
  /** The hook's argv after the script (`--role <role>`). */
  readonly argv: readonly string[];
  /** The hook's stdin, as read. */
  readonly stdin: string;
  /** The hook's own CLAUDE_PROJECT_DIR and HOME (what an in-process guard would read). */
  readonly env: { readonly CLAUDE_PROJECT_DIR?: string; readonly HOME?: string };
}

export interface GuardAnswer {
  readonly v: 1;
  readonly code: 0 | 2;
  readonly stdout: string;
  readonly stderr: string;
}

const isString = (v: unknown): v is string => typeof v === "string";

/** A request as the server reads it, or null when it is not one. */
export function parseRequest(text: string): GuardRequest | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object") return null;
  const r = v as Record<string, unknown>;
  if (r.v !== 1 || !Array.isArray(r.argv) || !r.argv.every(isString) || !isString(r.stdin)) {
    return null;
  }
  const env = (r.env ?? {}) as Record<string, unknown>;
  if (typeof env !== "object") return null;
  const pick = (k: "CLAUDE_PROJECT_DIR" | "HOME") => (isString(env[k]) ? { [k]: env[k] } : {});
  return {
    v: 1,
    argv: r.argv,
    stdin: r.stdin,
    env: { ...pick("CLAUDE_PROJECT_DIR"), ...pick("HOME") },
  };
}

/**
 * An answer the client may act on, or null. Exit 0 carries either nothing (no decision) or
 * exactly one PreToolUse deny; exit 2 carries nothing on stdout. Never "allow": a server that
 * said allow (or anything else) is not our server, and the client decides itself.
 */
export function parseAnswer(text: string): GuardAnswer | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object") return null;
  const a = v as Record<string, unknown>;
  if (a.v !== 1 || (a.code !== 0 && a.code !== 2) || !isString(a.stdout) || !isString(a.stderr)) {
    return null;
  }
  if (a.code === 2 && a.stdout !== "") return null;
  if (a.code === 0 && a.stdout !== "" && !isDenyJson(a.stdout)) return null;
  return { v: 1, code: a.code, stdout: a.stdout, stderr: a.stderr };
}

function isDenyJson(stdout: string): boolean {
  if (!stdout.endsWith("\n")) return false;
  let v: unknown;
  try {
    v = JSON.parse(stdout);
  } catch {
    return false;
  }
  const top = (v ?? {}) as Record<string, unknown>;
  const out = top.hookSpecificOutput as Record<string, unknown> | undefined;
  // A plain denial, or one that also stops the agent (the role gate's): nothing else.
  const stops = top.continue === false && isString(top.stopReason);
  return (
    !!out &&
    typeof out === "object" &&
    Object.keys(top).length === (stops ? 3 : 1) &&
    Object.keys(out).length === 3 &&
    out.hookEventName === "PreToolUse" &&
    out.permissionDecision === "deny" &&
    isString(out.permissionDecisionReason)
  );
}
