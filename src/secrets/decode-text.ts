/**
 * Decoding a base64 or hex run, kept only when the result is text: a secret hides in text (a
 * token, a key, a config file), and almost every long run in real texts is binary — hashes,
 * images, key material — which a text rule could not read anyway.
 */

/**
 * The decoded text of a base64/base64url run, and how many leading characters were not part
 * of the encoding; null when it is not mostly printable.
 */
export function decodeBase64Text(run: string): { text: string; skip: number } | null {
  // A run may start with up to 3 characters that are not part of the encoding (a diff's `+`,
  // a prefix glued to it); each shifts every sextet after it, so try the four alignments.
  for (let skip = 0; skip < 4 && run.length - skip >= 4; skip++) {
    const text = textOf(Buffer.from(run.slice(skip), "base64"));
    if (text !== null) return { text, skip };
  }
  return null;
}

/** The decoded text of a run of hex digits (either nibble alignment), or null. */
export function decodeHexText(hex: string): string | null {
  const even = hex.length - (hex.length % 2);
  const text = textOf(Buffer.from(hex.slice(0, even), "hex"));
  if (text !== null || even === hex.length) return text;
  return textOf(Buffer.from(hex.slice(1), "hex"));
}

function textOf(bytes: Buffer): string | null {
  return mostlyPrintable(bytes) ? bytes.toString("utf8") : null;
}

/**
 * At most 10% of the bytes are control characters (other than tab and line breaks) or not
 * part of a well-formed UTF-8 sequence. Random bytes fail by far (about half of them are
 * either); text passes even with a few bytes of a glued prefix. Checked on the bytes, without
 * building a string: most runs fail, usually within their first bytes.
 */
export function mostlyPrintable(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  const allowed = Math.floor(bytes.length / 10);
  let bad = 0;
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i] as number;
    let size = 1;
    if (c < 0x80) {
      if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f) bad++;
    } else {
      size = sequenceLength(bytes, i);
      if (size === 0) {
        bad++;
        size = 1;
      }
    }
    if (bad > allowed) return false;
    i += size;
  }
  return true;
}

/** Length of the well-formed UTF-8 sequence of 2–4 bytes at `i`, or 0. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i] as number;
  const size = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : 0;
  const length = size || (lead >= 0xf0 && lead <= 0xf4 ? 4 : 0);
  if (length === 0 || i + length > bytes.length) return 0;
  for (let j = 1; j < length; j++) {
    if (((bytes[i + j] as number) & 0xc0) !== 0x80) return 0;
  }
  return length;
}
