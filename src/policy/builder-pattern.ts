/**
 * Is a Bash command pattern safe to add to the builder's allow list (`builder.allow` in
 * .github/forge.yml, and the exact commands of the controls and the stack preset)?
 *
 * Claude Code's deny rules always win over allow rules, and the guard hook runs on every
 * call, so an allow entry can never make a denied command run as written. What an entry CAN
 * do is let a denied command through a door the deny rules do not watch: a wrapper or shell
 * (`env curl …`, `bash -c '…'`), inline code (`python3 -c …`), a package runner's
 * subcommand (`npm *` covers `npm exec`, npx's twin). And an entry that names a denied
 * command is a mistake the repository should hear about, not a silent no-op. So an entry
 * is refused when:
 * - it is not one plain command (tool rules, quotes, variables, operators, redirections);
 * - its program is not written out, or is a wrapper, a shell without a script, an
 *   interpreter given code instead of a module or script;
 * - git without a literal subcommand, or a pushing one;
 * - it could match a command the builder's settings deny (`curl *`, `npm *` ∩ `npm exec *`),
 *   or its literal part names a secret path as the guard reads Bash (`cat .env`).
 */
import { posix } from "node:path";
import { scanWord } from "../guard/bash-secrets.js";
import { EVAL_LIKE } from "../guard/command-rules.js";
import { KNOWN as GIT_COMMANDS, PUSH_REASON, PUSHING } from "../guard/git-rules.js";
import { INTERPRETERS } from "../guard/interpreter-rules.js";
import { charPart, type Word } from "../guard/shell-words.js";
import { SHELLS, WRAPPERS } from "../guard/wrapper-specs.js";
import { BUILDER_DENIED_COMMANDS } from "./builder-denied.js";
import { starIntersect, starMatch } from "./star-glob.js";

export interface PatternRefusal {
  code: string;
  message: string;
  expected?: string;
  fix: string;
}

/** The characters a pattern may hold: the guard's plain-command set, `~`, and `*`. */
export const PATTERN_CHARS = "letters, digits, spaces and - _ . / = : , @ % + ~ *";
const ALLOWED = /^[A-Za-z0-9 \-_./=:,@%+~*]$/;
const PROGRAM = /^[A-Za-z0-9_./+][A-Za-z0-9_./+-]*$/;
const TOOL_RULE = /^([A-Z][A-Za-z]*)(?:\((.*)\))?$/s;
const CLAUDE_TOOLS = new Set(
  (
    "Agent Bash CronCreate Edit EnterWorktree Glob Grep LS ListAgents Monitor MultiEdit " +
    "NotebookEdit Read ReportFindings ScheduleWakeup SendMessage Skill Task TodoWrite " +
    "ToolSearch WebFetch WebSearch Workflow Write"
  ).split(" "),
);
/** Programs that run a command given to them, beyond the guard's wrappers. */
const RUNNERS = new Set([...EVAL_LIKE, "xargs", "find", "source", ".", "strace", "ltrace"]);
const AWK = new Set(["awk", "gawk", "mawk", "nawk"]);

/** One space between words, none around: the form patterns are compared and written in. */
export function normaliseCommand(text: string): string {
  return text.trim().replace(/ +/g, " ");
}

/** Why `pattern` may not be added to the builder's allow list, or null when it may. */
export function checkBuilderPattern(pattern: string): PatternRefusal | null {
  const p = normaliseCommand(pattern);
  const shown = JSON.stringify(p);
  const tool = TOOL_RULE.exec(p);
  if (
    p.startsWith("mcp__") ||
    (tool && (tool[2] !== undefined || CLAUDE_TOOLS.has(tool[1] ?? "")))
  ) {
    return {
      code: "builder_allow_tool",
      message: `${shown} is a tool rule; builder.allow lists Bash commands only`,
      fix:
        tool?.[1] === "Bash" && tool[2]
          ? `write the command alone: ${JSON.stringify(tool[2])}`
          : "delete it: the builder's tools are forgechain's to choose",
    };
  }
  const bad = [...p].find((ch) => !ALLOWED.test(ch));
  if (p === "" || bad !== undefined) {
    return {
      code: "builder_allow_chars",
      message: `${shown} ${p === "" ? "is empty" : `contains ${JSON.stringify(bad)}, which builder.allow does not accept`}`,
      expected: `one command of ${PATTERN_CHARS}`,
      fix: "write the command without quotes, variables, redirections or shell operators; end it with * to allow any arguments",
    };
  }
  const words = p.split(" ");
  const program = words[0] ?? "";
  if (!PROGRAM.test(program)) {
    return {
      code: "builder_allow_program",
      message: `${shown} must start with the program's name, written out`,
      fix: 'name the program first, e.g. "python3 -m unittest *"',
    };
  }
  const name = posix.basename(program);
  return (
    checkProgram(name, words, shown) ??
    checkSecrets(words, shown) ??
    checkDenied([name, ...words.slice(1)].join(" "), shown)
  );
}

function checkProgram(name: string, words: readonly string[], shown: string) {
  const [, first, second] = words;
  if (Object.hasOwn(WRAPPERS, name) || RUNNERS.has(name)) {
    return {
      code: "builder_allow_wrapper",
      message: `${shown} starts with ${name}, which runs the command it is given, so it could allow any command`,
      fix: 'allow the command itself, e.g. "make test *" rather than "timeout 600 make test *"',
    };
  }
  const loose = (w: string | undefined) => w === undefined || w.includes("*");
  if (SHELLS.has(name) && (loose(first) || first?.startsWith("-"))) {
    return {
      code: "builder_allow_inline_code",
      message: `${shown} would let ${name} run any command line`,
      fix: 'name the script it runs, e.g. "bash scripts/test.sh *"',
    };
  }
  if (INTERPRETERS.has(name)) {
    const module = first === "-m" && !loose(second) && !second?.startsWith("-");
    const script = !loose(first) && !first?.startsWith("-");
    const nodeTest = first === "--test" && (name === "node" || name === "nodejs");
    if (AWK.has(name) || !(module || script || nodeTest)) {
      return {
        code: "builder_allow_inline_code",
        message: `${shown} would let ${name} run code given on the command line`,
        fix: 'name the module or script it runs, e.g. "python3 -m unittest *" or "node scripts/check.js *"',
      };
    }
  }
  if (name === "git" || name.startsWith("git-")) {
    const sub = name === "git" ? first : name.slice(4);
    if (sub === undefined || loose(sub) || sub.startsWith("-")) {
      return {
        code: "builder_allow_git",
        message: `${shown} must name the git subcommand right after git`,
        fix: 'write it out, e.g. "git stash *" (git push stays closed: the runner pushes)',
      };
    }
    if (PUSHING.has(sub) || !GIT_COMMANDS.has(sub)) {
      return {
        code: "builder_allow_denied",
        message: `${shown}: ${PUSHING.has(sub) ? PUSH_REASON : `git ${sub} is not a git command the guard lets through`}`,
        fix: "delete it",
      };
    }
  }
  return null;
}

/** The builder's deny rules: a match on the literal part, or any command both could match. */
function checkDenied(pattern: string, shown: string): PatternRefusal | null {
  const star = pattern.indexOf("*");
  const literal = (star < 0 ? pattern : pattern.slice(0, star)).trimEnd();
  for (const denied of BUILDER_DENIED_COMMANDS) {
    const hit =
      starMatch(denied, literal) || (!denied.startsWith("*") && starIntersect(pattern, denied));
    if (!hit) continue;
    return {
      code: "builder_allow_denied",
      message: `${shown} covers commands the builder may never run (denied: Bash(${denied}))`,
      fix: 'delete it or narrow it (e.g. "npm run *" rather than "npm *"): network tools, pushes, npx, uvx and the like stay closed to every role',
    };
  }
  return null;
}

// The guard's Bash secret scan, on the words as bash would see them (no file is read: no
// directory listing, no symlink is followed — a pattern is text, not a path on this disk).
const SCAN = {
  cwd: "/workspace",
  home: "/home/agent",
  dirs: {
    readdir: (): readonly string[] => {
      throw new Error("not read");
    },
  },
  realpath: (): string => {
    throw new Error("not read");
  },
};

function checkSecrets(words: readonly string[], shown: string): PatternRefusal | null {
  for (const text of words) {
    const word: Word = { parts: [...text].map((ch) => charPart(ch, false)), source: text };
    const found = scanWord(word, SCAN);
    if (!found) continue;
    const why = "hit" in found ? `${found.hit.what}, rule: ${found.hit.rule}` : found.reason;
    return {
      code: "builder_allow_secret",
      message: `${shown} names a secret path (${why})`,
      fix: "delete it: secret files stay closed to every role",
    };
  }
  return null;
}
