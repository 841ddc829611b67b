// R4.4 in one pure function: the read-only flags per provider, read from each CLI's own --help.
// A guessed flag breaks start-up with a parse error, which is worse than a step without
// enforcement — so a provider without a verified flag gets only the prompt, and the note says so.
import { type FlagSpec, removeFlags, splitAtTerminator } from "./argv.js";

/** Git subcommands that write to the index, the tree, the refs or a remote (R4.4). */
export const GIT_WRITE_SUBCOMMANDS = [
  "add",
  "commit",
  "push",
  "merge",
  "rebase",
  "reset",
  "checkout",
  "switch",
  "restore",
  "stash",
  "cherry-pick",
  "revert",
  "apply",
  "am",
  "rm",
  "mv",
  "clean",
  "tag",
  "worktree",
] as const;

/** Shell commands whose only job is to change files (R4.4). */
export const FILE_CHANGING_COMMANDS = [
  "rm",
  "mv",
  "cp",
  "tee",
  "touch",
  "mkdir",
  "chmod",
  "chown",
  "ln",
  "truncate",
  "dd",
  "sed -i",
] as const;

/** The four file-edit tools. MultiEdit is gone from 2.1.33x but an unknown name is harmless. */
export const FILE_EDIT_TOOLS = ["Edit", "Write", "MultiEdit", "NotebookEdit"] as const;

/**
 * The --disallowedTools list for Claude Code. `claude --help` (2.1.332) documents the
 * `Bash(git *)` form; the legacy `Bash(git add:*)` form was measured to deny the same calls,
 * so only the documented one is used. `Bash(x *)` needs a word boundary: it also denies the
 * bare `git add` (measured).
 */
export const CLAUDE_READ_ONLY_DENY: readonly string[] = [
  ...FILE_EDIT_TOOLS,
  ...GIT_WRITE_SUBCOMMANDS.map((sub) => `Bash(git ${sub} *)`),
  ...FILE_CHANGING_COMMANDS.map((cmd) => `Bash(${cmd} *)`),
];

export interface ReadOnlyResult {
  args: string[];
  enforcement: "flag" | "prompt-only";
  note: string;
}

/** Flags that would let a Claude step skip permission checks: never on a read-only step. */
const CLAUDE_BYPASS: FlagSpec[] = [
  { long: ["--dangerously-skip-permissions"], takesValue: false },
  { long: ["--allow-dangerously-skip-permissions"], takesValue: false },
];

/**
 * Codex: `--sandbox` is a value flag and clap refuses a repeat, so every spelling is removed
 * with its value first. `--full-auto` and the bypass flag select a sandbox too, and a
 * `-c sandbox_mode=…` override would fight ours: all removed.
 */
const CODEX_SANDBOX: FlagSpec[] = [
  { long: ["--sandbox"], short: ["-s"], takesValue: true },
  { long: ["--full-auto"], takesValue: false },
  { long: ["--dangerously-bypass-approvals-and-sandbox", "--yolo"], takesValue: false },
  {
    long: ["--config"],
    short: ["-c"],
    takesValue: true,
    valueMatches: (v) => /^\s*sandbox_mode\s*=/.test(v),
  },
];

/**
 * Apply the read-only rule to a provider's argv. Ours come last (before a `--` terminator, so
 * the prompt stays a positional) and win. Pure: the input array is not changed.
 */
export function applyReadOnly(provider: string, args: readonly string[]): ReadOnlyResult {
  const { head, tail } = splitAtTerminator(args);
  if (provider === "claude") {
    const { args: kept, removed } = removeFlags(head, CLAUDE_BYPASS);
    // A repeated variadic option concatenates in commander (measured on 2.1.332): a list the
    // deployment already passes (e.g. no browser tools) and ours add up; neither replaces.
    const out = [...kept, "--disallowedTools", ...CLAUDE_READ_ONLY_DENY, ...tail];
    return {
      args: out,
      enforcement: "flag",
      note:
        "claude: read-only enforced with --disallowedTools (file-edit tools, writing git " +
        "subcommands, file-changing shell commands), stacked with any list already given" +
        (removed.length ? `; removed: ${removed.join(", ")}` : "") +
        ". A tool deny list is not a sandbox (`bash -c`, `git -C . add` get around it): the box " +
        "and write detection are the boundary.",
    };
  }
  if (provider === "codex") {
    const { args: kept, removed } = removeFlags(head, CODEX_SANDBOX);
    return {
      args: [...kept, "--sandbox", "read-only", ...tail],
      enforcement: "flag",
      note:
        "codex: read-only enforced with --sandbox read-only" +
        (removed.length ? `; replaced: ${removed.join(", ")}` : "") +
        ". Flag taken from FACTS.md (codex exec --help); codex is not installed here.",
    };
  }
  return {
    args: [...args],
    enforcement: "prompt-only",
    note:
      `${provider}: no verified read-only flag for this CLI — only the written rule in the ` +
      "prompt; nothing stops this step from writing except the box and write detection.",
  };
}

/**
 * The two sentences every read-only step gets in its prompt (R4.4): the flag refuses, these
 * explain, so the agent does not treat a refusal as a bug to work around.
 */
export function readOnlyPromptSentences(): string {
  return READ_ONLY_PROMPT;
}

export const READ_ONLY_PROMPT =
  "This step is read-only: you must not edit, create or delete files, stage, commit, push or " +
  "otherwise change the git index, refs or remotes, or run shell commands whose only job is " +
  "to change the working tree — a refusal of such an action is the rule working, not an " +
  "obstacle to get around with another command. Reading, grep, git diff, git log, git show, " +
  "the tests and the linter stay open; report every change you think is needed in your " +
  "output with the file, the line and the reason, and leave applying it to the step that " +
  "owns the code.";
