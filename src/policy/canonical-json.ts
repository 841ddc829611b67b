import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every level and no whitespace, so that equal content always
 * gives equal bytes — the basis of every digest we record (R8.5). `undefined` members are
 * dropped (as JSON.stringify does); non-finite numbers are refused rather than silently
 * turned into `null`, which would let two different values share a digest.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not JSON`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  throw new TypeError(`canonicalJson: a ${typeof value} is not JSON`);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** sha256 of the canonical JSON of `value`. */
export function contentDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
