/**
 * Long base64/base64url and hex runs in a text, decoded when the result is text, so that a
 * secret a rule knows by its shape (a GitHub token, a PEM key) is found although it was
 * encoded. One level only: the decoded text is scanned but not decoded again — an encoding
 * of an encoding is deliberate hiding that no finite list of decoders would end, while one
 * level catches what tools produce (`base64`, `xxd -p`, Buffer.toString, JWT-like payloads).
 */
import { decodeBase64Text, decodeHexText } from "./decode-text.js";

/**
 * The shortest run decoded. 40 base64 characters are 30 bytes: room for the shortest token a
 * shape rule knows in full (a GitHub or npm token is 40 characters, 56 in base64). Shorter
 * runs are mostly identifiers, words and ids, each of which would cost a decode for nothing.
 * Known secret values are found at any length by the known-value search, not by this.
 */
export const MIN_RUN = 40;
/** A wrapped block's lines are at least this long (tools wrap at 60, 64 or 76). */
const MIN_WRAP = 16;

export interface EncodedRun {
  /** The run in the scanned text, end exclusive (a wrapped block: all its lines). */
  start: number;
  end: number;
  encoding: "base64" | "hex";
  decoded: string;
}

const HEX_RUN = /(?<![0-9a-fA-F])[0-9a-fA-F]{40,}/g;
const HEX = /^[0-9a-fA-F]+$/;
const LINE_BREAK = /^(?:\r?\n|\\r\\n|\\n)[ \t]*$/;
const TAIL = /(?:\r?\n|\\r\\n|\\n)[ \t]*([A-Za-z0-9+/_-]{1,17}={0,2})(?![A-Za-z0-9+/_=-])/y;

interface Token {
  start: number;
  end: number;
  text: string;
}

/** Every run that decodes to mostly printable UTF-8 text, in text order. */
export function findEncodedRuns(text: string): EncodedRun[] {
  const runs: EncodedRun[] = [];
  const tokens = tokensOf(text);
  for (let i = 0; i < tokens.length; ) {
    const block = wrappedBlock(text, tokens, i);
    const run = block && block.body.length >= MIN_RUN ? decodeRun(block) : null;
    const used = block?.used ?? 1;
    if (run) runs.push(run);
    else {
      // A block that is not text is tried line by line, never as shorter blocks: that would
      // decode a long binary block (a wrapped image) once per line.
      for (const token of tokens.slice(i, i + used)) {
        if (token.text.length >= MIN_RUN) runs.push(...decodeToken(token));
      }
    }
    i += used;
  }
  return runs;
}

/** A token as one run, else the hex runs inside it (`0x…`, a diff's `+…`). */
function decodeToken(token: Token): EncodedRun[] {
  const hex = HEX.test(token.text);
  const run = decodeRun({ start: token.start, end: token.end, body: token.text }, hex);
  if (run || hex) return run ? [run] : [];
  const found: EncodedRun[] = [];
  for (const m of token.text.matchAll(HEX_RUN)) {
    const decoded = decodeHexText(m[0]);
    const start = token.start + m.index;
    if (decoded !== null) found.push({ start, end: start + m[0].length, encoding: "hex", decoded });
  }
  return found;
}

/**
 * Hex digits only are decoded as hex, never as base64: in base64 of printable text the first
 * character of every four is one of I–Z or a–f, and the others vary as widely — text whose
 * base64 stays within 0–9, a–f and A–F over 40 characters does not occur.
 */
function decodeRun(
  candidate: { start: number; end: number; body: string },
  hex = HEX.test(candidate.body),
): EncodedRun | null {
  const { start, end, body } = candidate;
  if (hex) {
    const decoded = decodeHexText(body);
    return decoded === null ? null : { start, end, encoding: "hex", decoded };
  }
  const decoded = decodeBase64Text(body);
  if (decoded === null) return null;
  // Characters skipped to align the run (a diff's `+`) stay outside it: a diff keeps its `+`.
  return { start: start + decoded.skip, end, encoding: "base64", decoded: decoded.text };
}

/**
 * Lines of equal width (a multiple of 4) that each hold only base64 characters and follow one
 * another, plus a shorter last line: the output of `base64`, PEM-like wrapping, `xxd -p`. In a
 * diff every line starts with `+`, itself a base64 character: it is dropped when that makes
 * the first line a multiple of 4 long, and then from every line of the block.
 */
function wrappedBlock(
  text: string,
  tokens: Token[],
  from: number,
): { start: number; end: number; body: string; used: number } | null {
  const first = tokens[from] as Token;
  const marked = isMarker(first.text[0]) && first.text.length % 4 === 1;
  const marker = marked ? first.text[0] : undefined;
  const width = first.text.length - (marked ? 1 : 0);
  if (width % 4 !== 0 || width < MIN_WRAP) return null;
  const bodies = [first.text.slice(marked ? 1 : 0)];
  let end = first.end;
  let next = from + 1;
  let full = true;
  for (; next < tokens.length && full; next++) {
    const token = tokens[next] as Token;
    if (!LINE_BREAK.test(text.slice(end, token.start))) break;
    const body = bodyOf(token.text, width, marker);
    if (body.length > width) break;
    bodies.push(body);
    end = token.end;
    full = body.length === width && !body.endsWith("=");
  }
  if (full) {
    // A last line shorter than a token (under 16 characters) is not among the tokens.
    TAIL.lastIndex = end;
    const tail = TAIL.exec(text);
    const body = tail ? bodyOf(tail[1] ?? "", width, marker) : "";
    if (tail && body.length < width) {
      bodies.push(body);
      end = TAIL.lastIndex;
    }
  }
  if (bodies.length < 2) return null;
  const start = first.start + (marked ? 1 : 0);
  return { start, end, body: bodies.join(""), used: next - from };
}

// One entry per UTF-16 code unit: a lookup past a typed array's end takes V8's slow path.
const BASE64_CHAR = new Uint8Array(0x10000);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") {
  BASE64_CHAR[c.charCodeAt(0)] = 1;
}

/**
 * Every stretch of at least MIN_WRAP base64/base64url characters (with up to two `=` after
 * it). After a backslash, the escape's letter (`\n` in JSON text) is not part of a stretch.
 * Such a stretch covers one of every MIN_WRAP positions, so only those are probed and widened
 * to their stretch: this runs over every scanned text, and a loop over every character
 * measured 2.2 ms per 512 KiB, twice this (a regex was slower still).
 */
function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  const length = text.length;
  let from = 0; // nothing before this is part of an unreported stretch
  for (let probe = MIN_WRAP - 1; probe < length; probe += MIN_WRAP) {
    if (probe < from || !isBase64Char(text, probe)) continue;
    let start = probe;
    while (start > from && isBase64Char(text, start - 1)) start--;
    let stop = probe + 1;
    while (stop < length && isBase64Char(text, stop)) stop++;
    if (text[start - 1] === "\\" && "nrt".includes(text[start] ?? "")) start++;
    let end = stop;
    while (end < length && end - stop < 2 && text[end] === "=") end++;
    if (stop - start >= MIN_WRAP) tokens.push({ start, end, text: text.slice(start, end) });
    from = end;
  }
  return tokens;
}

function isBase64Char(text: string, at: number): boolean {
  return BASE64_CHAR[text.charCodeAt(at)] === 1;
}

function isMarker(c: string | undefined): boolean {
  return c === "+" || c === "-";
}

/** A line without its diff marker: a full line one longer than the width, or any line of a
 * block whose first line was marked. */
function bodyOf(line: string, width: number, marker: string | undefined): string {
  if (isMarker(line[0]) && line.length === width + 1) return line.slice(1);
  if (marker !== undefined && line[0] === marker && line.length <= width + 1) return line.slice(1);
  return line;
}
