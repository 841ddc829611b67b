// R8.5: a run freezes what it runs with — role files, settings, schemas, skills, provider,
// registry revision, tool availability — so later edits do not change a running chain.
import { createHash } from "node:crypto";
import { canonicalJson, NotJsonError } from "./canonical-json.js";
import { SnapshotError } from "./errors.js";
import type { RunSnapshot } from "./types.js";

/**
 * Freeze `content`: a deep, frozen copy (the caller's object may change afterwards without
 * effect) and the sha256 (hex) over its canonical JSON. Non-JSON content is refused.
 */
export function freezeSnapshot(content: Record<string, unknown>): RunSnapshot {
  if (content === null || typeof content !== "object" || Array.isArray(content)) {
    throw new SnapshotError("snapshot content must be a JSON object");
  }
  let text: string;
  try {
    text = canonicalJson(content);
  } catch (err) {
    if (err instanceof NotJsonError) throw new SnapshotError(err.message);
    throw err;
  }
  const copy = deepFreeze(JSON.parse(text) as Record<string, unknown>);
  return Object.freeze({ digest: sha256Hex(text), content: copy });
}

/** The digest `content` should have; compare with a stored snapshot to detect tampering. */
export function snapshotDigest(content: Record<string, unknown>): string {
  try {
    return sha256Hex(canonicalJson(content));
  } catch (err) {
    if (err instanceof NotJsonError) throw new SnapshotError(err.message);
    throw err;
  }
}

/** True when the stored digest still matches the stored content. */
export function verifySnapshot(snapshot: RunSnapshot): boolean {
  try {
    return snapshotDigest(snapshot.content) === snapshot.digest;
  } catch {
    return false;
  }
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
