// The guard's decision for one tool call: a deny reason, or null ("no decision": the
// settings decide). Never "allow" — in dontAsk mode a hook's allow would run a call that no
// allow rule covers.
import type { Role } from "../roles/role-names.js";
import { analyseBashCommand } from "./bash-analysis.js";
import type { BashParser } from "./bash-parser.js";
import type { DirReader } from "./glob-expand.js";
import type { HookInput } from "./hook-input.js";
import type { RealpathFn } from "./path-normalise.js";
import { checkPathTool, type LstatFn, ToolInputError } from "./path-tools.js";

export type GuardDecision = { readonly deny: string } | null;

export interface GuardDeps {
  readonly parser: BashParser;
  readonly lstat: LstatFn;
  readonly dirs: DirReader;
  readonly realpath: RealpathFn;
  /** CLAUDE_PROJECT_DIR and HOME from the hook's environment. */
  readonly env: { readonly CLAUDE_PROJECT_DIR?: string; readonly HOME?: string };
  /**
   * R7.3 role gate: the role profile's `disallowed_tools`, checked after the guard's own rules;
   * returns the refusal reason (which carries ROLE_GATE_VIOLATION) or null.
   */
  readonly roleGate?: (input: HookInput) => Promise<string | null>;
}

export const PATH_TOOLS: ReadonlySet<string> = new Set([
  "Read",
  "Edit",
  "Write",
  "NotebookEdit",
  "Glob",
  "Grep",
]);

function deny(reason: string): GuardDecision {
  return { deny: `forge guard: ${reason}` };
}

export async function decideToolCall(
  input: HookInput,
  role: Role,
  deps: GuardDeps,
): Promise<GuardDecision> {
  const home = deps.env.HOME || undefined;
  if (input.tool_name === "Bash") {
    const command = input.tool_input.command;
    if (typeof command !== "string") throw new ToolInputError("tool_input.command is missing");
    const reason = await analyseBashCommand(command, {
      parser: deps.parser,
      cwd: input.cwd,
      home,
      dirs: deps.dirs,
      realpath: deps.realpath,
    });
    return reason ? deny(reason) : null;
  }
  if (PATH_TOOLS.has(input.tool_name)) {
    const reason = checkPathTool(input.tool_name, input.tool_input, {
      role,
      cwd: input.cwd,
      projectDir: deps.env.CLAUDE_PROJECT_DIR || input.cwd,
      home,
      lstat: deps.lstat,
      realpath: deps.realpath,
    });
    return reason ? deny(reason) : null;
  }
  return null; // WebFetch, Task, TodoWrite, …: the settings govern them
}
