// Secret paths named anywhere inside a Bash command (R4.2). Every word's value (quotes
// removed, escapes processed, concatenations joined: `.e"nv"` is `.env`), redirect targets,
// assignment values, heredoc bodies — and the text inside them split into path-like tokens, so
// `python -c "open('.env')"` and `--env-file=.env` yield the token `.env`.
import { posix } from "node:path";
import { type CredentialSegment, credentialRule } from "./credential-paths.js";
import { type DirReader, expandOnDisk, GlobTooBroadError } from "./glob-expand.js";
import {
  credentialSegment,
  elementsFromParts,
  type GlobElement,
  isLiteralOnly,
  patternRule,
} from "./glob-segment.js";
import {
  hasControlChars,
  normalisePath,
  type RealpathFn,
  resolveExisting,
  segmentsOf,
} from "./path-normalise.js";
import { classifySegments, rootRule, type SecretHit, segmentRule } from "./secret-paths.js";
import type { ShellScript } from "./shell-script.js";
import { charPart, hasDynamic, isGlobAt, type Word, type WordPart } from "./shell-words.js";

export interface SecretScanContext {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly dirs: DirReader;
  readonly realpath: RealpathFn;
}

/** Lexical check of an absolute path, then the same check of where its symlinks lead. */
function absoluteHit(abs: string, ctx: SecretScanContext, namesDir: boolean): SecretHit | null {
  const hit = classifySegments(segmentsOf(abs), "bash", namesDir);
  if (hit) return hit;
  const real = resolveExisting(abs, ctx.realpath);
  if (real === abs) return null;
  const viaLink = classifySegments(segmentsOf(real), "bash", namesDir);
  return viaLink ? { rule: viaLink.rule, what: abs, viaSymlink: true } : null;
}

/** Characters that cannot be part of a path token inside a larger string. */
const SEPARATORS = new Set([..." \t\n\r'\"`();|&<>,=:{}"]);

/** Splits a word into path-like tokens; `whole` marks a token that is the entire word. */
export function tokensOf(parts: readonly WordPart[]): { parts: WordPart[]; whole: boolean }[] {
  const tokens: WordPart[][] = [];
  let current: WordPart[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!p) continue;
    if (p.kind === "char" && !p.quoted && p.ch === "[" && isGlobAt(parts, i)) {
      // keep a bracket expression whole: `.[e,]nv` must stay one token
      let j = i;
      while (j < parts.length) {
        const q = parts[j];
        if (q) current.push(q);
        if (j > i && q?.kind === "char" && !q.quoted && q.ch === "]") break;
        j++;
      }
      i = j;
    } else if (p.kind === "char" && SEPARATORS.has(p.ch)) {
      if (current.length > 0) tokens.push(current);
      current = [];
    } else current.push(p);
  }
  if (current.length > 0) tokens.push(current);
  const whole = tokens.length === 1 && tokens[0]?.length === parts.length;
  return tokens.map((t) => ({ parts: t, whole }));
}

function literalToken(value: string, ctx: SecretScanContext, namesDir: boolean): SecretHit | null {
  const abs = normalisePath(value, ctx.cwd, ctx.home);
  const hit = absoluteHit(abs, ctx, namesDir);
  if (hit) return hit;
  // A relative path may be used after a `cd` (or `env -C`, `git -C`, `find /`): whatever the
  // directory, `proc/…` or `../../sys/…` may name the root ones.
  if (!value.startsWith("/") && value.includes("/")) {
    const rel = posix.normalize(value).split("/");
    const first = rel.find((s) => s !== "." && s !== ".." && s !== "");
    const root = first === undefined ? null : rootRule(first);
    if (root) return { rule: root, what: value };
  }
  return null;
}

function splitSegments(parts: readonly WordPart[]): WordPart[][] {
  const segs: WordPart[][] = [[]];
  for (const p of parts) {
    if (p.kind === "char" && p.ch === "/") segs.push([]);
    else segs.at(-1)?.push(p);
  }
  return segs;
}

function patternToken(
  parts: readonly WordPart[],
  ctx: SecretScanContext,
  namesDir: boolean,
  expand: boolean,
): SecretHit | null {
  const segs = splitSegments(parts);
  const absolute = parts[0]?.kind === "char" && parts[0].ch === "/";
  const hasSlash = segs.length > 1;
  const elements: GlobElement[][] = segs.map((s) => elementsFromParts(s));
  const creds: CredentialSegment[] = elements.map(credentialSegment);
  let rootPosition = hasSlash;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? [];
    const els = elements[i] ?? [];
    const last = i === segs.length - 1;
    const ctx = { mode: "bash", last, namesDirItself: namesDir } as const;
    const allDyn = seg.length > 0 && seg.every((p) => p.kind === "dyn");
    if (isLiteralOnly(els)) {
      const name = els.map((e) => (e.kind === "lit" ? e.ch : "")).join("");
      const rule =
        segmentRule(name, ctx) ??
        (rootPosition ? rootRule(name) : null) ??
        credentialRule(creds, i, ctx);
      if (rule) return { rule, what: name };
      if (name !== "" && name !== "." && name !== "..") rootPosition = false;
      continue;
    }
    const rule = patternRule(els, { ...ctx, rootPosition }) ?? credentialRule(creds, i, ctx);
    if (rule) return { rule, what: seg.map((p) => (p.kind === "char" ? p.ch : "$…")).join("") };
    if (!allDyn) rootPosition = false; // a wholly computed segment may be empty or `/`
  }
  const globbed = parts.some((_, i) => isGlobAt(parts, i));
  if (expand && globbed && !parts.some((p) => p.kind === "dyn")) {
    const base = absolute ? "/" : ctx.cwd;
    for (const match of expandOnDisk(elements, base, ctx.dirs)) {
      const hit = absoluteHit(match, ctx, namesDir);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * A quoted glob is not expanded by bash, but programs expand it themselves
 * (`find . -name '.e*' -exec cat {} +`): check it as a pattern too, without reading the disk.
 */
function quotedGlobToken(
  parts: readonly WordPart[],
  ctx: SecretScanContext,
  namesDir: boolean,
): SecretHit | null {
  if (!parts.some((p) => p.kind === "char" && "*?[".includes(p.ch))) return null;
  const unquoted = parts.map((p) =>
    p.kind === "char" && "*?[]".includes(p.ch) ? charPart(p.ch, false) : p,
  );
  return patternToken(unquoted, ctx, namesDir, false);
}

/** A secret path (rule hit) or another reason to refuse (control characters, a huge glob). */
export type SecretFinding = { readonly hit: SecretHit } | { readonly reason: string };

function scanParts(parts: readonly WordPart[], ctx: SecretScanContext): SecretFinding | null {
  for (const token of tokensOf(parts)) {
    const text = token.parts.map((p) => (p.kind === "char" ? p.ch : "")).join("");
    if (hasControlChars(text)) return { reason: "a word contains control characters" };
    const last = token.parts.at(-1);
    const namesDir = token.whole || (last?.kind === "char" && last.ch === "/");
    const plain =
      !hasDynamic({ parts: token.parts, source: "" }) &&
      !token.parts.some((_, i) => isGlobAt(token.parts, i));
    try {
      const hit = plain
        ? (literalToken(text, ctx, namesDir) ?? quotedGlobToken(token.parts, ctx, namesDir))
        : patternToken(token.parts, ctx, namesDir, true);
      if (hit) return { hit };
    } catch (error) {
      if (error instanceof GlobTooBroadError) return { reason: error.message };
      throw error;
    }
  }
  return null;
}

export function scanWord(word: Word, ctx: SecretScanContext): SecretFinding | null {
  return scanParts(word.parts, ctx);
}

export function scanText(text: string, ctx: SecretScanContext): SecretFinding | null {
  return scanParts(
    [...text].map((ch) => charPart(ch, true)),
    ctx,
  );
}

/** Every word of the script the secret scan looks at. */
export function wordsOf(script: ShellScript): Word[] {
  const words: Word[] = [...script.looseWords];
  for (const a of script.assignments) if (a.value) words.push(a.value);
  for (const r of script.redirects) if (r.target) words.push(r.target);
  for (const c of script.commands) {
    words.push(...c.words);
    for (const a of c.assignments) if (a.value) words.push(a.value);
    for (const r of c.redirects) if (r.target) words.push(r.target);
  }
  return words;
}

/** The first secret path named anywhere in the script, skipping `exempt` words. */
export function scanScript(
  script: ShellScript,
  exempt: ReadonlySet<Word>,
  ctx: SecretScanContext,
): SecretFinding | null {
  for (const w of wordsOf(script)) {
    if (exempt.has(w)) continue;
    const found = scanWord(w, ctx);
    if (found) return found;
  }
  for (const text of script.heredocs) {
    // heredoc text is data, but `cat <<EOF > x` feeds it to programs that may open names in it
    const found = scanText(text, ctx);
    if (found) return found;
  }
  return null;
}
