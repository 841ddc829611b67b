import { createHash } from "node:crypto";
import { canonicalJson } from "../chain/canonical-json.js";

// One canonical JSON for every digest we record (R8.5): the chain's (keys sorted at every
// level, no whitespace, non-JSON values refused rather than silently mapped).
export { canonicalJson };

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** sha256 of the canonical JSON of `value`. */
export function contentDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
