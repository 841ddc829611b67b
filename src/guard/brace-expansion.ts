// Bash brace expansion (`pu{sh,ll}`, `.e{nv,x}`, `{1..3}`), done on the character model so
// quoted braces stay literal. Bash expands braces before anything else, so one written word
// can become several argv words (`{git,push}` is `git push`): the guard must see the result.
import { charPart, type Word, type WordPart } from "./shell-words.js";

/** More words than this from one written word: refuse rather than guess. */
export const MAX_BRACE_WORDS = 256;

export class BraceOverflowError extends Error {
  constructor(readonly source: string) {
    super(`brace expansion of ${source} yields more than ${MAX_BRACE_WORDS} words`);
  }
}

function isUnquoted(p: WordPart | undefined, ch: string): boolean {
  return p?.kind === "char" && !p.quoted && p.ch === ch;
}

interface BraceGroup {
  open: number;
  close: number;
  commas: number[];
}

function findGroup(parts: readonly WordPart[], open: number): BraceGroup | null {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open + 1; i < parts.length; i++) {
    const p = parts[i];
    if (isUnquoted(p, "{")) depth++;
    else if (isUnquoted(p, "}")) {
      if (depth === 0) return { open, close: i, commas };
      depth--;
    } else if (depth === 0 && isUnquoted(p, ",")) commas.push(i);
  }
  return null;
}

function sequenceItems(inner: readonly WordPart[]): string[] | null {
  if (inner.some((p) => p.kind !== "char" || p.quoted)) return null;
  const text = inner.map((p) => (p.kind === "char" ? p.ch : "")).join("");
  const num = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const chr = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = num ?? chr;
  if (!match) return null;
  const [, a = "", b = "", stepText] = match;
  const step = Math.abs(Number(stepText ?? "1")) || 1;
  const from = num ? Number(a) : a.charCodeAt(0);
  const to = num ? Number(b) : b.charCodeAt(0);
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_WORDS) throw new BraceOverflowError(text);
  const width = num && (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.length, b.length) : 0;
  const items: string[] = [];
  for (let k = 0; k < count; k++) {
    const v = from + (to >= from ? k * step : -k * step);
    items.push(num ? String(v).padStart(width, "0") : String.fromCharCode(v));
  }
  return items;
}

function expandParts(parts: readonly WordPart[], out: WordPart[][], source: string): void {
  for (let i = 0; i < parts.length; i++) {
    if (!isUnquoted(parts[i], "{")) continue;
    const group = findGroup(parts, i);
    if (!group) continue;
    const prefix = parts.slice(0, group.open);
    const suffix = parts.slice(group.close + 1);
    const inner = parts.slice(group.open + 1, group.close);
    let alternatives: WordPart[][] | null = null;
    if (group.commas.length > 0) {
      alternatives = [];
      let start = group.open + 1;
      for (const comma of [...group.commas, group.close]) {
        alternatives.push(parts.slice(start, comma));
        start = comma + 1;
      }
    } else {
      const items = sequenceItems(inner);
      if (items) alternatives = items.map((s) => [...s].map((ch) => charPart(ch, true)));
    }
    if (!alternatives) continue; // `{}` or `{a}`: literal braces, keep scanning
    for (const alt of alternatives) {
      expandParts([...prefix, ...alt, ...suffix], out, source);
      if (out.length > MAX_BRACE_WORDS) throw new BraceOverflowError(source);
    }
    return;
  }
  out.push([...parts]);
}

/** The words bash makes of one written word by brace expansion (usually just itself). */
export function expandBraces(word: Word): Word[] {
  if (!word.parts.some((p) => isUnquoted(p, "{"))) return [word];
  const out: WordPart[][] = [];
  expandParts(word.parts, out, word.source);
  return out.map((parts) => ({ parts, source: word.source }));
}
