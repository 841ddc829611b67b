// The hook's process contract with Claude Code:
// - deny → the JSON below on stdout, exit 0;
// - no decision → nothing on stdout, exit 0 (never "allow");
// - any error → reason on stderr, exit 2 (Claude Code denies on 2; exit 1, a crash or a
//   timeout would ALLOW the call, so no path may end that way).
import { isRole, ROLES, type Role } from "../roles/role-names.js";
import { decideToolCall, type GuardDeps } from "./decide.js";
import { parseHookInput } from "./hook-input.js";

export { readAll } from "./read-all.js";

/** Bigger stdin is refused: Claude Code's hook input is a few KB. */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;
/** If no decision is out by then, deny (the hook timeout would allow). */
export const WATCHDOG_MS = 5_000;

export class GuardUsageError extends Error {}

export interface GuardIo {
  readStdin(): Promise<string>;
  writeStdout(text: string): Promise<void>;
  writeStderr(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function denyJson(reason: string): string {
  return `${JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason,
    },
  })}\n`;
}

/**
 * A denial that also ends the agent: `continue: false` makes Claude Code stop before it sends
 * the refusal back to the model (measured on 2.1.332: no further model request, exit 0, no
 * structured output). The role gate's violation ends the step (R7.3); the runner's kill on
 * seeing the refusal in the stream came too late under load, after the model had the result.
 */
export function denyAndStopJson(reason: string): string {
  return `${JSON.stringify({
    continue: false,
    stopReason: reason,
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason,
    },
  })}\n`;
}

/** `--role <role>` or `--role=<role>`, nothing else. */
export function parseGuardArgs(argv: readonly string[]): Role {
  const usage = `usage: forge guard --role <${ROLES.join("|")}>`;
  let value: string | undefined;
  if (argv.length === 2 && argv[0] === "--role") value = argv[1];
  else if (argv.length === 1 && argv[0]?.startsWith("--role=")) value = argv[0].slice(7);
  else throw new GuardUsageError(usage);
  if (!isRole(value)) throw new GuardUsageError(`unknown role ${JSON.stringify(value)}; ${usage}`);
  return value;
}

/** One hook run; resolves to the exit code (0 or 2). Never rejects. */
export async function runGuard(
  argv: readonly string[],
  io: GuardIo,
  deps: GuardDeps,
): Promise<0 | 2> {
  try {
    const role = parseGuardArgs(argv);
    const input = parseHookInput(await io.readStdin());
    if (io.env.FORGE_GUARD_TEST_THROW === "sync") throw new Error("test-only failure");
    const decision = await decideToolCall(input, role, deps);
    if (decision) await io.writeStdout(denyJson(decision.deny));
    else {
      const gate = deps.roleGate ? await deps.roleGate(input) : null;
      if (gate) await io.writeStdout(denyAndStopJson(`forge guard: ${gate}`));
    }
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.writeStderr(`forge guard: ${message}; denying\n`);
    return 2;
  }
}
