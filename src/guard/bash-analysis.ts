// The Bash tool's command: parse (fast path or tree-sitter), then the command rules (git push
// in any form, wrappers, nested scripts), then the secret-path scan over every word.
import type { BashParser } from "./bash-parser.js";
import { scanScript } from "./bash-secrets.js";
import { BraceOverflowError } from "./brace-expansion.js";
import { type CommandContext, shown } from "./command-context.js";
import { analyseArgv, checkAssignment } from "./command-rules.js";
import { fastPathScript } from "./fast-path.js";
import type { DirReader } from "./glob-expand.js";
import type { RealpathFn } from "./path-normalise.js";
import { ShellParseError, type ShellScript } from "./shell-script.js";
import { scriptFromTree } from "./shell-tree.js";

export interface BashAnalysisDeps {
  readonly parser: BashParser;
  readonly cwd: string;
  readonly home: string | undefined;
  readonly dirs: DirReader;
  readonly realpath: RealpathFn;
}

/** Nested scripts (`bash -c "eval '…'"`) deeper than this are refused. */
export const MAX_NESTING = 6;
/** Longer commands are refused: parsing and scanning run synchronously inside the hook. */
export const MAX_COMMAND_LENGTH = 64_000;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_EXCEPT_TAB_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

async function parse(command: string, deps: BashAnalysisDeps): Promise<ShellScript | string> {
  const fast = fastPathScript(command);
  if (fast) return fast;
  try {
    return await deps.parser.withTree(command, (root) => scriptFromTree(root, command, deps.home));
  } catch (error) {
    // The parse failure is a deny with a reason (fail closed), not the exit-2 error path:
    // the agent sees why, and either way the call does not run.
    if (error instanceof ShellParseError || error instanceof BraceOverflowError) {
      return `could not parse the command (${error.message})`;
    }
    throw error;
  }
}

/** The reason to refuse `command`, or null. Reasons have no "forge guard:" prefix. */
export async function analyseBashCommand(
  command: string,
  deps: BashAnalysisDeps,
  depth = 0,
): Promise<string | null> {
  if (depth > MAX_NESTING) return "the command nests scripts too deeply to check";
  if (command.length > MAX_COMMAND_LENGTH) return "the command is too long to check";
  if (CONTROL_EXCEPT_TAB_NEWLINE.test(command)) return "the command contains control characters";
  const script = await parse(command, deps);
  if (typeof script === "string") return script;
  const ctx: CommandContext = {
    exempt: new Set(),
    analyseScript: (source) => analyseBashCommand(source, deps, depth + 1),
    analyseArgv: (words, mode) => analyseArgv(words, ctx, mode),
  };
  for (const a of script.assignments) {
    const found = await checkAssignment(a, ctx);
    if (found) return found.reason;
  }
  for (const cmd of script.commands) {
    for (const a of cmd.assignments) {
      const found = await checkAssignment(a, ctx);
      if (found) return found.reason;
    }
    const found = await analyseArgv(cmd.words, ctx, "strict");
    if (found) return found.reason;
  }
  const secret = scanScript(script, ctx.exempt, deps);
  if (!secret) return null;
  if ("reason" in secret) return secret.reason;
  const { what, rule, viaSymlink } = secret.hit;
  if (viaSymlink) return `${shown(what)} leads to a secret path through a symlink (rule: ${rule})`;
  return `${shown(what)} is a secret path (rule: ${rule})`;
}
