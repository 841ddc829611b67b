// What one simple command runs: wrappers are looked through (`env -i git push`, `nice -n 5`,
// `timeout 5`, `sudo`, `xargs`, …), shells' `-c` strings, `eval` and `trap` strings are parsed
// as scripts, `find -exec` runs its argv, and a command name computed at run time is refused.
// Any other program's arguments are still searched for a `git`/shell/wrapper word ("tail"
// mode) so that unknown wrappers (`uv run git push`, `strace -f git push`) are caught when the
// finding is certain.
import {
  type CommandContext,
  certain,
  type Finding,
  type Mode,
  shown,
  uncertain,
} from "./command-context.js";
import { analyseGit } from "./git-rules.js";
import { analyseInterpreter, analyseSource, INTERPRETERS } from "./interpreter-rules.js";
import { scanOptions } from "./option-scan.js";
import { analyseShell } from "./shell-rules.js";
import type { Assignment } from "./shell-script.js";
import {
  commandBasename,
  dynamicWord,
  literalOf,
  plainWord,
  textOf,
  type Word,
} from "./shell-words.js";
import { SHELLS, UNSAFE_SHOPTS, WRAPPERS, XARGS } from "./wrapper-specs.js";

/** Variables that change what bash or git runs or reads: never set by an agent. */
const DENIED_VARIABLES =
  /^(GLOBIGNORE|BASH_ENV|ENV|BASHOPTS|SHELLOPTS|GIT_CONFIG\w*|GIT_EXEC_PATH|PROMPT_COMMAND)$/;
/** Variables whose value another program runs as a command line: analysed as a script. */
const COMMAND_VARIABLES = new Set([
  "GIT_PAGER",
  "PAGER",
  "GIT_EDITOR",
  "EDITOR",
  "VISUAL",
  "GIT_SEQUENCE_EDITOR",
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  "LESSOPEN",
  "LESSCLOSE",
  "MANPAGER",
]);

export async function checkAssignment(a: Assignment, ctx: CommandContext): Promise<Finding | null> {
  if (DENIED_VARIABLES.test(a.name)) {
    return certain(`setting ${a.name} is not allowed (it changes what bash or git runs)`);
  }
  if (!COMMAND_VARIABLES.has(a.name) || !a.value) return null;
  const lit = literalOf(a.value);
  if (lit === null)
    return certain(`${a.name} is set to a run-time value, and it is run as a command`);
  const reason = await ctx.analyseScript(lit);
  return reason ? certain(reason) : null;
}

/** `NAME=VALUE` given as a word (after `env` or `sudo`). */
function assignmentOf(word: Word): Assignment | null {
  const eq = word.parts.findIndex((p) => p.kind === "char" && p.ch === "=");
  if (eq <= 0) return null;
  const name = literalOf({ parts: word.parts.slice(0, eq), source: "" });
  if (name === null || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return null;
  return { name, value: { parts: word.parts.slice(eq + 1), source: word.source } };
}

async function joinedScript(words: readonly Word[], what: string, ctx: CommandContext) {
  const lits = words.map(literalOf);
  if (lits.some((l) => l === null))
    return uncertain(`the command given to ${what} is computed at run time`);
  const reason = await ctx.analyseScript(lits.join(" "));
  return reason ? certain(reason) : null;
}

async function unwrap(name: string, args: readonly Word[], ctx: CommandContext, mode: Mode) {
  const spec = WRAPPERS[name] ?? {};
  const scan = scanOptions(args, 0, spec);
  if (!scan.ok) return uncertain(`cannot check the options of ${name} (${scan.problem})`);
  let i = scan.next;
  if (spec.assignments) {
    for (; i < args.length; i++) {
      const w = args[i] as Word;
      if (literalOf(w) === "-") continue; // `env -` is `env -i`
      const a = assignmentOf(w);
      if (!a) break;
      const found = await checkAssignment(a, ctx);
      if (found) return found;
    }
  }
  for (const v of scan.values) {
    const script =
      v.option === "S" || v.option === "split-string" || v.option === "c" || v.option === "command";
    if (!script) continue;
    if (!v.value) return null;
    // `env -S 'git push'`, `flock -c 'git push' f`: a command line in an option
    const found = await joinedScript([v.value, ...args.slice(i)], `${name} -${v.option}`, ctx);
    if (found) return found;
  }
  i += spec.positional ?? 0;
  const rest = args.slice(i);
  const restFirst = rest[0] ? literalOf(rest[0]) : null;
  if (name === "flock" && (restFirst === "-c" || restFirst === "--command")) {
    // `flock FILE -c 'cmd'`: the command line comes after the lock file
    return rest[1] ? joinedScript([rest[1]], "flock -c", ctx) : null;
  }
  if (name === "sudo" && (scan.flags.has("s") || scan.flags.has("i") || scan.flags.has("shell"))) {
    const found = await joinedScript(rest, "sudo -s", ctx);
    if (found) return found;
  }
  return analyseArgv(rest, ctx, mode);
}

async function analyseXargs(args: readonly Word[], ctx: CommandContext, mode: Mode) {
  const scan = scanOptions(args, 0, XARGS);
  if (!scan.ok) return uncertain(`cannot check the options of xargs (${scan.problem})`);
  const replace = scan.values.find((v) => v.option === "I" || v.option === "i");
  const replaceStr = replace?.value ? literalOf(replace.value) : replace ? "{}" : null;
  let command = args.slice(scan.next);
  if (command.length === 0) command = [plainWord("echo")];
  // the items xargs reads from stdin become arguments: unknown words
  const argv =
    replaceStr !== null || scan.flags.has("replace")
      ? command.map((w) => (textOf(w).includes(replaceStr ?? "{}") ? dynamicWord(textOf(w)) : w))
      : [...command, dynamicWord("<items from stdin>")];
  return analyseArgv(argv, ctx, mode);
}

async function analyseFind(args: readonly Word[], ctx: CommandContext, mode: Mode) {
  for (let i = 0; i < args.length; i++) {
    const lit = literalOf(args[i] as Word);
    if (lit !== "-exec" && lit !== "-execdir" && lit !== "-ok" && lit !== "-okdir") continue;
    let j = i + 1;
    const argv: Word[] = [];
    for (; j < args.length; j++) {
      const w = args[j] as Word;
      const l = literalOf(w);
      if (l === ";" || (l === "+" && argv.length > 0)) break;
      argv.push(l?.includes("{}") ? dynamicWord(l) : w);
    }
    const found = await analyseArgv(argv, ctx, mode);
    if (found) return found;
    i = j;
  }
  return null;
}

async function analyseShopt(args: readonly Word[]) {
  const lits = args.map(literalOf);
  if (!lits.includes("-s")) return null;
  for (const l of lits) {
    if (l === null) return uncertain("shopt is given an option computed at run time");
    if (UNSAFE_SHOPTS.has(l))
      return certain(`shopt -s ${l} is not allowed (it changes what globs match)`);
  }
  return null;
}

async function analyseEvalLike(name: string, args: readonly Word[], ctx: CommandContext) {
  switch (name) {
    case "eval":
      return joinedScript(args, "eval", ctx);
    case "trap": {
      const first = args.findIndex((w) => !/^(-p|-l|--)$/.test(literalOf(w) ?? ""));
      const action = args[first];
      return action ? joinedScript([action], "trap", ctx) : null;
    }
    case "alias":
      for (const w of args) {
        const eq = textOf(w).indexOf("=");
        if (eq < 0) continue;
        const value = { parts: w.parts.slice(eq + 1), source: w.source };
        const found = await joinedScript([value], "alias", ctx);
        if (found) return found;
      }
      return null;
    case "watch": {
      const scan = scanOptions(args, 0, {
        flags: "bcdeghtxpwr",
        valued: "nq",
        longValued: ["interval"],
      });
      if (!scan.ok) return uncertain(`cannot check the options of watch (${scan.problem})`);
      return joinedScript(args.slice(scan.next), "watch", ctx);
    }
    default: {
      // su, runuser, script: `-c CMD`, `--command CMD`, `--command=CMD`
      for (let i = 0; i < args.length; i++) {
        const t = textOf(args[i] as Word);
        if (t === "-c" || t === "--command") {
          const v = args[i + 1];
          if (v) return joinedScript([v], `${name} -c`, ctx);
        } else if (t.startsWith("--command=")) {
          const w = args[i] as Word;
          return joinedScript([{ parts: w.parts.slice(10), source: w.source }], `${name} -c`, ctx);
        }
      }
      return null;
    }
  }
}

export const EVAL_LIKE = new Set(["eval", "trap", "alias", "watch", "su", "runuser", "script"]);

function hasHandler(name: string): boolean {
  return (
    name === "git" ||
    name.startsWith("git-") ||
    Object.hasOwn(WRAPPERS, name) ||
    SHELLS.has(name) ||
    EVAL_LIKE.has(name) ||
    name === "xargs" ||
    name === "find" ||
    INTERPRETERS.has(name) ||
    name === "source" ||
    name === "."
  );
}

async function dispatch(name: string, args: readonly Word[], ctx: CommandContext, mode: Mode) {
  if (name === "git") return analyseGit(args, ctx, mode);
  if (name.startsWith("git-")) return analyseGit([plainWord(name.slice(4)), ...args], ctx, mode);
  if (Object.hasOwn(WRAPPERS, name)) return unwrap(name, args, ctx, mode);
  if (SHELLS.has(name)) return analyseShell(name, args, ctx);
  if (EVAL_LIKE.has(name)) return analyseEvalLike(name, args, ctx);
  if (name === "xargs") return analyseXargs(args, ctx, mode);
  if (name === "find") return analyseFind(args, ctx, mode);
  if (name === "shopt") return analyseShopt(args);
  if (name === "source" || name === ".") return analyseSource(name, args);
  if (INTERPRETERS.has(name)) return analyseInterpreter(name, args);
  return null;
}

/** Analyses an argv (argv[0] is the program). */
export async function analyseArgv(
  words: readonly Word[],
  ctx: CommandContext,
  mode: Mode,
): Promise<Finding | null> {
  const nameWord = words[0];
  if (!nameWord) return null;
  const name = commandBasename(nameWord);
  if (name === null) {
    return uncertain(
      `the command name ${shown(nameWord.source || textOf(nameWord, "$…"))} is computed at run time, so the guard cannot tell what it runs`,
    );
  }
  const args = words.slice(1);
  const found = await dispatch(name, args, ctx, mode);
  if (found && (mode === "strict" || found.certain)) return found;
  if (mode === "tail" || name === "git") return null;
  // look for a command hidden among the arguments of a program we do not know
  for (let i = 1; i < words.length; i++) {
    const b = commandBasename(words[i] as Word);
    if (b === null || !hasHandler(b)) continue;
    const inner = await analyseArgv(words.slice(i), ctx, "tail");
    if (inner?.certain) return inner;
  }
  return null;
}
