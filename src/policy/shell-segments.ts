/**
 * A deliberately small shell reader for the role gate: it splits a Bash command into the
 * simple commands it would run, so `Bash(git push:*)` also matches `cd x && git push`,
 * `FOO=1 git -C . push`, `echo "$(git push)"` and `sh -c 'git push'`. It is the second
 * layer: the PreToolUse guard's tree-sitter analysis is the first. Where it cannot read a
 * command (unbalanced quotes) it says so, and the caller fails closed.
 */
export interface ShellReading {
  /** Each simple command as normalised words (quotes removed, wrappers and env stripped). */
  commands: string[][];
  /** False when the text could not be read; callers must then assume the worst. */
  ok: boolean;
}

const SEPARATORS = new Set([";", "&", "|", "&&", "||", "\n", "(", ")", "{", "}", "!", "|&", ";;"]);
const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "for",
  "in",
  "case",
  "esac",
  "time",
  "coproc",
]);
// Programs that run their arguments as a command. The number is how many option words with a
// value they may take before the command (best effort; unknown options are skipped).
const WRAPPERS = new Set([
  "env",
  "command",
  "builtin",
  "exec",
  "nohup",
  "nice",
  "sudo",
  "doas",
  "timeout",
  "stdbuf",
  "xargs",
  "chroot",
  "setsid",
  "unbuffer",
  "ionice",
  "chrt",
  "taskset",
  "flock",
  "watch",
  "strace",
  "ltrace",
]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"]);
const GIT_OPTIONS_WITH_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--config-env",
  "--super-prefix",
]);

export function readShell(text: string, depth = 0): ShellReading {
  if (depth > 8) return { commands: [], ok: false };
  const lexed = lex(text);
  if (!lexed) return { commands: [], ok: false };
  const commands: string[][] = [];
  let ok = true;
  for (const inner of lexed.nested) {
    const reading = readShell(inner, depth + 1);
    commands.push(...reading.commands);
    ok &&= reading.ok;
  }
  let current: string[] = [];
  const flush = () => {
    const raw = current;
    const words = normalise(current);
    current = [];
    if (words.length === 0) return;
    commands.push(words);
    // A wrapper's options may take values we do not know (`sudo -u x git push`): read every
    // later word as a possible start of the wrapped command. More matches, never fewer.
    const head = raw.findIndex((w) => WRAPPERS.has(basename(w)));
    if (head >= 0) {
      for (let i = head + 1; i < Math.min(raw.length, head + 12); i++) {
        const suffix = normalise(raw.slice(i));
        if (suffix.length > 0) commands.push(suffix);
      }
    }
    // `sh -c '<script>'`, `eval <script>`: the argument is itself a command line.
    const script = shellScript(words);
    if (script !== undefined) {
      const reading = readShell(script, depth + 1);
      commands.push(...reading.commands);
      ok &&= reading.ok;
    }
  };
  for (const token of lexed.tokens) {
    if (token.op && SEPARATORS.has(token.value)) flush();
    else if (!token.op) current.push(token.value);
  }
  flush();
  return { commands, ok };
}

function shellScript(words: string[]): string | undefined {
  const [first, ...rest] = words;
  if (first === "eval") return rest.join(" ");
  if (first && SHELLS.has(first)) {
    const i = rest.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w));
    if (i >= 0) return rest[i + 1];
  }
  return undefined;
}

function normalise(words: string[]): string[] {
  let out = [...words];
  for (;;) {
    const before = out.length;
    while (out[0] && (KEYWORDS.has(out[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(out[0]))) out.shift();
    const head = out[0] ? basename(out[0]) : undefined;
    if (head && WRAPPERS.has(head)) {
      out.shift();
      // Skip the wrapper's options (and a numeric argument such as timeout's duration).
      while (out[0] && (out[0].startsWith("-") || /^[0-9.]+[smhd]?$/.test(out[0]))) out.shift();
    }
    if (out.length === before) break;
  }
  if (out[0]) out[0] = basename(out[0]);
  if (out[0] === "git") {
    const rest: string[] = [];
    let i = 1;
    for (; i < out.length; i++) {
      const w = out[i] as string;
      if (!w.startsWith("-")) break;
      if (GIT_OPTIONS_WITH_VALUE.has(w)) i++;
    }
    for (; i < out.length; i++) rest.push(out[i] as string);
    out = ["git", ...rest];
  }
  return out;
}

function basename(word: string): string {
  const cut = word.lastIndexOf("/");
  return cut >= 0 && cut < word.length - 1 ? word.slice(cut + 1) : word;
}

interface Token {
  value: string;
  op: boolean;
}

/** Words and operators; `$(…)`, `<(…)`, `>(…)` and backquotes are returned as nested text. */
function lex(text: string): { tokens: Token[]; nested: string[] } | null {
  const tokens: Token[] = [];
  const nested: string[] = [];
  let word = "";
  let inWord = false;
  let skipNext = false;
  const endWord = () => {
    if (inWord && skipNext) skipNext = false;
    else if (inWord) tokens.push({ value: word, op: false });
    word = "";
    inWord = false;
  };
  let i = 0;
  const substitution = (open: number): number | null => {
    // text[open] is "(" ; returns the index of the matching ")".
    let depth = 0;
    for (let j = open; j < text.length; j++) {
      const c = text[j];
      if (c === "\\") j++;
      else if (c === "'") {
        const end = text.indexOf("'", j + 1);
        if (end < 0) return null;
        j = end;
      } else if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return j;
    }
    return null;
  };
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === "\\") {
      if (next === "\n") i += 2;
      else {
        word += next ?? "";
        inWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return null;
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j];
        if (d === "\\") {
          word += text[j + 1] ?? "";
          j++;
        } else if (d === "$" && text[j + 1] === "(") {
          const end = substitution(j + 1);
          if (end === null) return null;
          nested.push(text.slice(j + 2, end));
          j = end;
        } else if (d === "`") {
          const end = text.indexOf("`", j + 1);
          if (end < 0) return null;
          nested.push(text.slice(j + 1, end));
          j = end;
        } else word += d;
      }
      if (j >= text.length) return null;
      inWord = true;
      i = j + 1;
    } else if ((c === "$" || c === "<" || c === ">") && next === "(") {
      const end = substitution(i + 1);
      if (end === null) return null;
      nested.push(text.slice(i + 2, end));
      inWord = true;
      i = end + 1;
    } else if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end < 0) return null;
      nested.push(text.slice(i + 1, end));
      inWord = true;
      i = end + 1;
    } else if (c === "#" && !inWord) {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "<" || c === ">") {
      // A redirection: drop it, fd digits before it, and its target word.
      word = "";
      inWord = false;
      i++;
      while (text[i] === ">" || text[i] === "<" || text[i] === "&" || text[i] === "|") i++;
      skipNext = true;
    } else if (
      ";&|\n()".includes(c) ||
      (!inWord && "{}!".includes(c) && /[\s;]|^$/.test(next ?? ""))
    ) {
      endWord();
      const two = c + (next ?? "");
      if (["&&", "||", "|&", ";;"].includes(two)) {
        tokens.push({ value: two, op: true });
        i += 2;
      } else {
        tokens.push({ value: c, op: true });
        i++;
      }
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  endWord();
  return { tokens, nested };
}
