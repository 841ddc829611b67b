// The guard's fast path: most Bash calls (`git status`, `npm test`, `ls -la src`) need no
// parser. Why this is exact: a command made only of the characters below contains no quote,
// backslash, `$`, backtick, glob (`*?[`), brace, tilde, redirection, pipe, `;`, `&`, parenthesis,
// comment `#`, `!`, newline or tab. Without those, bash performs no quote removal, no expansion
// and no word splitting beyond the spaces themselves, so splitting on spaces yields exactly
// bash's words. Two things still differ from "argv": leading `NAME=value` words are
// assignments, and a reserved word in command position (`time`, `coproc`, `if`, …) changes the
// grammar — those go to the real parser. The result is analysed by the same rules as a parsed
// command.
import type { Assignment, ShellScript } from "./shell-script.js";
import { plainWord } from "./shell-words.js";

const SAFE = /^[A-Za-z0-9 \-_./=:,@%+]*$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$/;
const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "time",
  "coproc",
]);

const DECLARATIONS = new Set(["export", "declare", "typeset", "local", "readonly"]);

/** The script for a plain word list, or null when the real parser is needed. */
export function fastPathScript(command: string): ShellScript | null {
  if (!SAFE.test(command)) return null;
  const tokens = command.split(" ").filter((t) => t.length > 0);
  const assignments: Assignment[] = [];
  let i = 0;
  for (; i < tokens.length; i++) {
    const m = ASSIGNMENT.exec(tokens[i] ?? "");
    if (!m) break;
    assignments.push({ name: m[1] ?? "", value: plainWord(m[2] ?? "") });
  }
  const argv = tokens.slice(i);
  if (argv[0] !== undefined && RESERVED.has(argv[0])) return null;
  // `export NAME=value` assigns, like the tree path's declaration_command
  let words = argv;
  if (argv[0] !== undefined && DECLARATIONS.has(argv[0])) {
    words = argv.filter((t, k) => {
      const m = k > 0 ? ASSIGNMENT.exec(t) : null;
      if (m) assignments.push({ name: m[1] ?? "", value: plainWord(m[2] ?? "") });
      return !m;
    });
  }
  const empty = { looseWords: [], redirects: [], heredocs: [] };
  if (argv.length === 0) return { ...empty, commands: [], assignments };
  return {
    ...empty,
    assignments: [],
    commands: [
      { assignments, words: words.map(plainWord), redirects: [], stdinFromHeredoc: false },
    ],
  };
}
