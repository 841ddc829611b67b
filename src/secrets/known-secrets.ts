/**
 * The secret values this deployment holds (model credential, installation tokens, GIT_PAT, the
 * App's key and webhook secret, the gate key, …), registered once by the composition code, and
 * searched in every scanned text as plain text and in every encoding of known-encodings.ts. A
 * shape-based rule cannot know that a string is *our* key; this can, in any encoding (R3.3).
 *
 * Process-wide on purpose: every caller of scanSecrets (verdicts, run output, the push check)
 * gains the search without being handed a list.
 */
import { type Needle, needlesFor, widen } from "./known-encodings.js";
import { NeedleIndex } from "./needle-index.js";

/**
 * Values shorter than this are ignored: a short string occurs by chance in large texts (and
 * its base64 inner part is shorter still), so searching it would report ordinary text as a
 * secret; and no credential the deployment holds is that short.
 */
export const MIN_SECRET_LENGTH = 8;
/** Lines of a multi-line value (a PEM key's body lines are 64) registered on their own. */
export const MIN_LINE_LENGTH = 16;
// PEM armour and RFC 1421 header lines are the same in every key: not secret.
const ARMOUR = /^(?:-----(?:BEGIN|END) |Proc-Type:|DEK-Info:)/;

export interface RegisterOptions {
  /**
   * Forget the values after this long. For short-lived credentials registered again and again
   * (an installation token lives an hour): the registry would otherwise grow with every token
   * for as long as the App runs, and every scan searches every value.
   */
  forgetAfterMs?: number;
}

interface Entry {
  needles: Needle[];
  expiresAt: number;
}

const entries = new Map<string, Entry>();
let index: NeedleIndex<Needle> | null = null;
let nextExpiry = Number.POSITIVE_INFINITY;

/**
 * Registers secret values (ignored: shorter than MIN_SECRET_LENGTH, duplicates). Surrounding
 * whitespace is not part of a value. Each line of a multi-line value of at least
 * MIN_LINE_LENGTH characters is registered too, so a partial copy of a key is found.
 */
export function registerKnownSecrets(values: Iterable<string>, options?: RegisterOptions): void {
  for (const raw of values) {
    const value = raw.trim();
    if (value.length < MIN_SECRET_LENGTH) continue;
    add(Buffer.from(value, "utf8"), options);
    // Both real and JSON/.env-escaped (`\n`) line breaks: PRIVATE_KEY is often given escaped.
    const lines = value.split(/\r?\n|\\r\\n|\\n/);
    if (lines.length < 2) continue;
    for (const line of lines.map((l) => l.trim())) {
      if (line.length >= MIN_LINE_LENGTH && !ARMOUR.test(line)) {
        add(Buffer.from(line, "utf8"), options);
      }
    }
  }
}

/**
 * Registers a binary secret (the gate key file holds random bytes): searched as base64,
 * base64url, hex and every-byte URL-encoding, since its bytes never appear as text.
 */
export function registerKnownSecretBytes(bytes: Uint8Array, options?: RegisterOptions): void {
  if (bytes.length >= MIN_SECRET_LENGTH) add(Buffer.from(bytes), options);
}

export function clearKnownSecretsForTests(): void {
  entries.clear();
  index = null;
  nextExpiry = Number.POSITIVE_INFINITY;
}

function add(bytes: Buffer, options: RegisterOptions | undefined): void {
  const key = bytes.toString("base64");
  const ttl = options?.forgetAfterMs;
  const expiresAt = ttl === undefined ? Number.POSITIVE_INFINITY : Date.now() + ttl;
  const existing = entries.get(key);
  if (existing) {
    existing.expiresAt = Math.max(existing.expiresAt, expiresAt);
    return;
  }
  entries.set(key, { needles: needlesFor(bytes), expiresAt });
  nextExpiry = Math.min(nextExpiry, expiresAt);
  index = null;
}

/** One occurrence of a known value, in one encoding. */
export interface KnownSecretMatch {
  start: number;
  end: number;
  encoding: string;
}

/** Every occurrence of a registered value in `text`, overlapping occurrences merged. */
export function findKnownSecrets(text: string): KnownSecretMatch[] {
  const search = currentIndex();
  if (!search) return [];
  const found: KnownSecretMatch[] = [];
  search.find(text, (needle, at) => {
    const range = widen(text, needle, at, at + needle.text.length);
    // Hits come nearly in order: one that overlaps the last is merged now, so a text that
    // repeats a value thousands of times does not make thousands of findings to sort.
    const last = found.at(-1);
    const overlaps = last && last.start <= range.start && range.start < last.end;
    if (last && overlaps && last.encoding === needle.encoding) {
      last.end = Math.max(last.end, range.end);
    } else found.push({ ...range, encoding: needle.encoding });
  });
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: KnownSecretMatch[] = [];
  for (const match of found) {
    const last = merged.at(-1);
    if (last && match.start < last.end) {
      last.end = Math.max(last.end, match.end);
      if (!last.encoding.split(", ").includes(match.encoding)) {
        last.encoding += `, ${match.encoding}`;
      }
    } else merged.push({ ...match });
  }
  return merged;
}

function currentIndex(): NeedleIndex<Needle> | null {
  const now = Date.now();
  if (now >= nextExpiry) {
    nextExpiry = Number.POSITIVE_INFINITY;
    for (const [key, entry] of entries) {
      if (entry.expiresAt <= now) entries.delete(key);
      else nextExpiry = Math.min(nextExpiry, entry.expiresAt);
    }
    index = null;
  }
  if (entries.size === 0) return null;
  index ??= new NeedleIndex([...entries.values()].flatMap((e) => e.needles));
  return index;
}
