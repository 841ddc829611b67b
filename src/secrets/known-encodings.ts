/**
 * The forms in which a known secret value is searched: each is a literal string ("needle")
 * found by a literal search (needle-index.ts), so the scanned text needs no decoding — and a
 * value inside binary data, which no decoder would take for text, is found too.
 */
export interface Needle {
  text: string;
  /** How the value was encoded, for the finding's message ("base64", "hex", …). */
  encoding: string;
  /**
   * Base64 only: characters just before / after the needle that carry some bits of the value
   * (the partial sextets at either edge) and padding after it. The finding is widened over
   * them so that redaction removes the whole encoded occurrence.
   */
  edges?: { before: boolean; after: boolean; alphabet: RegExp };
}

const BASE64_CHAR = /[A-Za-z0-9+/]/;
const BASE64URL_CHAR = /[A-Za-z0-9_-]/;

/** Every needle for one secret value (given as its bytes), without duplicates. */
export function needlesFor(bytes: Buffer): Needle[] {
  const needles: Needle[] = [];
  const plain = bytes.toString("utf8");
  // Binary values (a random gate key) have no plain or URL form worth searching.
  const isText = Buffer.from(plain, "utf8").equals(bytes);
  if (isText) needles.push({ text: plain, encoding: "plain" });
  for (const [kind, alphabet] of [
    ["base64", BASE64_CHAR],
    ["base64url", BASE64URL_CHAR],
  ] as const) {
    for (let align = 0; align < 3; align++) {
      needles.push(base64Needle(bytes, align, kind, alphabet));
    }
  }
  const hex = bytes.toString("hex");
  needles.push({ text: hex, encoding: "hex" }, { text: hex.toUpperCase(), encoding: "hex" });
  if (isText) needles.push({ text: encodeURIComponent(plain), encoding: "URL-encoded" });
  const everyByte = hex.replace(/../g, "%$&");
  needles.push(
    { text: everyByte.toUpperCase(), encoding: "URL-encoded" },
    { text: everyByte, encoding: "URL-encoded" },
  );
  const seen = new Set<string>();
  return needles.filter((n) => !seen.has(n.text) && seen.add(n.text));
}

/**
 * Base64 of a value embedded in a longer base64 text depends on the value's byte offset mod 3:
 * with `align` bytes before it, the first characters mix those bytes' bits with the value's,
 * and the last one mixes the value's with whatever follows. The characters in between depend
 * on the value alone, so searching them for each of the three alignments finds the value
 * wherever it sits. Character i covers bits [6i, 6i+6); the value covers bits
 * [8·align, 8·(align+n)).
 */
function base64Needle(
  bytes: Buffer,
  align: number,
  encoding: "base64" | "base64url",
  alphabet: RegExp,
): Needle {
  const encoded = Buffer.concat([Buffer.alloc(align), bytes])
    .toString(encoding)
    .replace(/=+$/, "");
  const first = Math.ceil((8 * align) / 6);
  const endBits = 8 * (align + bytes.length);
  const last = Math.floor(endBits / 6);
  return {
    text: encoded.slice(first, last),
    encoding,
    edges: { before: align !== 0, after: endBits % 6 !== 0, alphabet },
  };
}

/** The range of an encoded occurrence found at [start, end), widened over its partial edges. */
export function widen(
  text: string,
  needle: Needle,
  start: number,
  end: number,
): { start: number; end: number } {
  const edges = needle.edges;
  if (!edges) return { start, end };
  let from = start;
  let to = end;
  if (edges.before && from > 0 && edges.alphabet.test(text[from - 1] ?? "")) from--;
  if (edges.after && to < text.length && edges.alphabet.test(text[to] ?? "")) to++;
  for (let pad = 0; pad < 2 && text[to] === "="; pad++) to++;
  return { start: from, end: to };
}
