// The guard's model of one shell word after quote removal, at the level of single characters.
// Each character remembers whether it was quoted, because only unquoted `*`, `?`, `[`, `{`
// and a leading `~` are special to bash. Parts whose value is only known at run time
// (`$X`, `$(…)`, `$((…))`, `<(…)`) are kept as opaque "dyn" parts.

export type WordPart =
  | { readonly kind: "char"; readonly ch: string; readonly quoted: boolean }
  | { readonly kind: "dyn"; readonly source: string };

export interface Word {
  readonly parts: readonly WordPart[];
  /** The word as written in the command (for messages only). */
  readonly source: string;
}

export function charPart(ch: string, quoted: boolean): WordPart {
  return { kind: "char", ch, quoted };
}

export function dynPart(source: string): WordPart {
  return { kind: "dyn", source };
}

/** A word made of plain unquoted characters (the fast path and synthetic words). */
export function plainWord(text: string): Word {
  return { parts: [...text].map((ch) => charPart(ch, false)), source: text };
}

/** A word whose whole value is unknown, e.g. the items `xargs` appends from stdin. */
export function dynamicWord(source: string): Word {
  return { parts: [dynPart(source)], source };
}

/** Index of the unquoted `]` closing a bracket expression opened at `start`, or -1. */
export function bracketEnd(parts: readonly WordPart[], start: number): number {
  let i = start + 1;
  const at = (k: number) => parts[k];
  const first = at(i);
  if (first?.kind === "char" && !first.quoted && (first.ch === "!" || first.ch === "^")) i++;
  const lead = at(i);
  if (lead?.kind === "char" && lead.ch === "]") i++; // a leading `]` is a member, not the end
  for (; i < parts.length; i++) {
    const p = at(i);
    if (p?.kind !== "char") continue;
    if (p.ch === "/") return -1; // a bracket expression never spans a path separator
    if (p.ch === "]" && !p.quoted) return i;
  }
  return -1;
}

/** True if the character at `i` is an unquoted glob operator bash would expand. */
export function isGlobAt(parts: readonly WordPart[], i: number): boolean {
  const p = parts[i];
  if (p?.kind !== "char" || p.quoted) return false;
  if (p.ch === "*" || p.ch === "?") return true;
  return p.ch === "[" && bracketEnd(parts, i) > 0;
}

export function hasGlob(word: Word): boolean {
  return word.parts.some((_, i) => isGlobAt(word.parts, i));
}

export function hasDynamic(word: Word): boolean {
  return word.parts.some((p) => p.kind === "dyn");
}

/** The exact value of the word, or null when it has a run-time part or an unquoted glob. */
export function literalOf(word: Word): string | null {
  if (hasDynamic(word) || hasGlob(word)) return null;
  return word.parts.map((p) => (p.kind === "char" ? p.ch : "")).join("");
}

/** The value with run-time parts replaced by `replacement` (for messages and joining). */
export function textOf(word: Word, replacement = "…"): string {
  return word.parts.map((p) => (p.kind === "char" ? p.ch : replacement)).join("");
}

/** The part of the word after its last `/` (the program a command name runs). */
export function basenameParts(word: Word): readonly WordPart[] {
  let last = -1;
  word.parts.forEach((p, i) => {
    if (p.kind === "char" && p.ch === "/") last = i;
  });
  return word.parts.slice(last + 1);
}

/** The literal basename of a command word, or null when it is computed at run time. */
export function commandBasename(word: Word): string | null {
  const parts = basenameParts(word);
  const probe: Word = { parts, source: word.source };
  return literalOf(probe);
}

/**
 * Tilde expansion (bash does it before globbing): an unquoted `~` at the start of the word,
 * up to the first `/`, becomes HOME. `~user`, `~+`, `~-` are left as run-time values.
 */
export function expandTilde(word: Word, home: string | undefined): Word {
  const first = word.parts[0];
  if (first?.kind !== "char" || first.quoted || first.ch !== "~") return word;
  let end = 1;
  while (end < word.parts.length) {
    const p = word.parts[end];
    if (p?.kind === "char" && p.ch === "/") break;
    end++;
  }
  const rest = word.parts.slice(end);
  if (end === 1 && home !== undefined) {
    return { parts: [...[...home].map((ch) => charPart(ch, true)), ...rest], source: word.source };
  }
  return { parts: [dynPart("~"), ...rest], source: word.source };
}
