import { createHash } from "node:crypto";
import type { Decision } from "../roles/decision.js";

/**
 * Digest of the verdicts an approval approves (R9.4): role and verdict of every step in chain
 * order. An approval sealed over this digest cannot be replayed onto a chain whose verdicts
 * changed (a re-run, an override) even for the same head.
 */
export function verdictsDigest(decisions: readonly Pick<Decision, "role" | "verdict">[]): string {
  const canonical = JSON.stringify(decisions.map((d) => [d.role, d.verdict]));
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}
