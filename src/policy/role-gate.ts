// R7.3 role gate, the refusing half: a call that matched a denied pattern is appended to the
// hash-chained ledger and refused. The matching lives in role-gate-match.ts.
import { contentDigest } from "./canonical-json.js";
import { appendLedger } from "./ledger.js";
import type { Profile } from "./profile-schema.js";
import { matchDisallowed } from "./role-gate-match.js";
import { readShell } from "./shell-segments.js";

export { type MatchOptions, matchDisallowed } from "./role-gate-match.js";

/** R7.3: the code a step ends with when one of its tool calls matched a denied pattern. */
export const ROLE_GATE_VIOLATION = "ROLE_GATE_VIOLATION" as const;
export type RoleGateViolationCode = typeof ROLE_GATE_VIOLATION;

/**
 * The ledger entry for a refused call. The tool input is recorded only as a digest plus a
 * short target (the path, or the first words of the command): a Bash command may carry a
 * token, and the ledger is kept and shown.
 */
export function roleGateViolationEntry(args: {
  role: string;
  runId?: string;
  tool: string;
  input: unknown;
  pattern: string;
  at: Date;
}): Record<string, unknown> {
  const input = (args.input && typeof args.input === "object" ? args.input : {}) as Record<
    string,
    unknown
  >;
  const path = input.file_path ?? input.notebook_path ?? input.path;
  const target =
    typeof path === "string"
      ? path.slice(0, 300)
      : typeof input.command === "string"
        ? (readShell(input.command).commands[0] ?? []).slice(0, 2).join(" ").slice(0, 80)
        : undefined;
  return {
    type: "role_gate_violation",
    code: ROLE_GATE_VIOLATION,
    at: args.at.toISOString(),
    role: args.role,
    ...(args.runId ? { run_id: args.runId } : {}),
    tool: args.tool,
    pattern: args.pattern,
    ...(target !== undefined ? { target } : {}),
    input_sha256: contentDigest(args.input ?? null),
  };
}

export type RoleGateDecision =
  | { denied: false }
  | {
      denied: true;
      code: RoleGateViolationCode;
      pattern: string;
      reason: string;
      ledgerHead: string;
    };

/**
 * The whole role gate for one tool call (R7.3): match the profile's disallowed_tools; on a
 * match append the violation to the hash-chained ledger and return the refusal. The caller
 * (the PreToolUse guard) denies the call and the runner ends the step with
 * ROLE_GATE_VIOLATION. If the ledger cannot be written this throws — the guard must then
 * deny anyway (fail-closed).
 */
export function enforceRoleGate(args: {
  profile: Pick<Profile, "role" | "disallowed_tools">;
  tool: string;
  input: unknown;
  ledgerFile: string;
  runId?: string;
  cwd?: string;
  now?: () => Date;
}): RoleGateDecision {
  const pattern = matchDisallowed(
    args.profile,
    args.tool,
    args.input,
    args.cwd ? { cwd: args.cwd } : {},
  );
  if (pattern === null) return { denied: false };
  const entry = roleGateViolationEntry({
    role: args.profile.role,
    tool: args.tool,
    input: args.input,
    pattern,
    at: (args.now ?? (() => new Date()))(),
    ...(args.runId ? { runId: args.runId } : {}),
  });
  const ledgerHead = appendLedger(args.ledgerFile, entry);
  return {
    denied: true,
    code: ROLE_GATE_VIOLATION,
    pattern,
    reason: `${ROLE_GATE_VIOLATION}: the ${args.profile.role} profile denies ${pattern}`,
    ledgerHead,
  };
}
