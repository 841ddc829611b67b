// Programs that run code the guard cannot parse as Bash.
// - `source`/`.` and a shell given a stream instead of a file (`bash <(…)`, `. /dev/stdin`)
//   run commands the guard never sees: refused. A script *file* is allowed — its content is
//   the box's problem (R2.5: the agent holds no push token anyway).
// - Interpreters with inline code (`python -c`, `node -e`, `perl -e`, `awk '…'`): a heuristic,
//   not a parser — code that spells `git … push` is refused.
import { certain, type Finding, uncertain } from "./command-context.js";
import { literalOf, textOf, type Word } from "./shell-words.js";

const STREAM_PATHS = /^(-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/self\/fd\/\d+)$/;

/** A word naming a stream rather than a file: `<(…)`, `/dev/stdin`, `/dev/fd/N`, `-`. */
export function isStreamWord(word: Word): boolean {
  const first = word.parts[0];
  if (word.parts.length === 1 && first?.kind === "dyn") {
    return first.source.startsWith("<(") || first.source.startsWith(">(");
  }
  const lit = literalOf(word);
  return lit !== null && STREAM_PATHS.test(lit);
}

export function analyseSource(name: string, args: readonly Word[]): Finding | null {
  const file = args[0];
  if (!file) return uncertain(`${name} without a file reads nothing the guard can check`);
  if (isStreamWord(file)) {
    return uncertain(
      `${name} ${textOf(file, "…")} would run commands from a stream the guard cannot see`,
    );
  }
  return null;
}

export const INTERPRETERS = new Set([
  "python",
  "python2",
  "python3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "php",
  "lua",
  "Rscript",
  "tclsh",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "osascript",
]);

/** `git` followed by `push` (or send-pack) within one statement of code. */
const PUSH_IN_CODE = /\bgit\b[^;\n|&]{0,80}?\b(push|send-pack|http-push)\b/;

export function analyseInterpreter(name: string, args: readonly Word[]): Finding | null {
  for (const w of args) {
    if (PUSH_IN_CODE.test(textOf(w, " "))) {
      return certain(`${name} code that runs git push is not allowed (the runner pushes)`);
    }
  }
  return null;
}
