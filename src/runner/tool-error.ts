// What an agent's failed tool call was: a refusal (the guard, the settings, the role gate) or
// an ordinary failure (a command that exited non-zero, a file that does not exist). Progress,
// the sticky comment and `forge logs` label them differently: a failing `make test` is the
// builder's work, not a refusal. Texts as claude 2.1.332 words them (measured):
//   "Exit code 3\nout\nerr"                                       a Bash command that failed
//   "Permission to use Bash has been denied because Claude Code …"  the settings (dontAsk)
//   "PreToolUse:Bash hook error: forge guard: .env is a secret…"    the guard hook

export type ToolErrorKind = "refused" | "exit" | "error";

export interface ToolError {
  kind: ToolErrorKind;
  /** The exit code of a command that failed. */
  exitCode?: number;
  /** The text without claude's "Exit code N" line. */
  detail: string;
}

const REFUSAL =
  /^(PreToolUse|PostToolUse)\b|Permission to use \S+ (has been|was) denied|forge guard|ROLE_GATE_VIOLATION|\bhas been denied\b|\bwas blocked\b/i;

export function classifyToolError(text: string): ToolError {
  const exit = /^(?:Error: )?Exit code (\d+)\n?/.exec(text);
  if (exit) return { kind: "exit", exitCode: Number(exit[1]), detail: text.slice(exit[0].length) };
  if (REFUSAL.test(text)) return { kind: "refused", detail: text };
  return { kind: "error", detail: text };
}

/**
 * At most `max` characters, cut at a word boundary with "…" — never mid-word; whitespace runs
 * become one space. A single word longer than `max` is cut (there is no boundary to use).
 */
export function clipWords(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  if (max <= 1) return "…".slice(0, max);
  const room = flat.slice(0, max - 1);
  const space = room.lastIndexOf(" ");
  const cut = space >= Math.floor(max / 2) ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:.]+$/, "")}…`;
}
