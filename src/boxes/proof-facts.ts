// R7.2: a proof holds while the facts it was made under are unchanged — no time expiry.
// bwrap/worktree have no image: the toolbox (host os/arch/libc) and the harness version stand
// in for the image digest.
import { createHash } from "node:crypto";
import { canonicalJson } from "../chain/canonical-json.js";
import type { BoxProof } from "../chain/ports.js";

export { canonicalJson };

export interface ValidateControl {
  run: string;
  advisory: boolean;
}

export interface ProofFactsInput {
  boxKind: string;
  /** "none" for boxes without an image. */
  image: string;
  toolbox: string;
  /** e.g. "claude 2.1.332". */
  harness: string;
  setup: readonly string[];
  validate: Record<string, ValidateControl>;
  /** sha256 of the effective role settings the enforcement check ran with. */
  settings: string;
  /** The boxes' network: "proxy" (the egress proxy), "host" or "none". */
  network: string;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function proofFacts(input: ProofFactsInput): Record<string, string> {
  return {
    box: input.boxKind,
    image: input.image,
    toolbox: input.toolbox,
    harness: input.harness,
    setup: sha256(canonicalJson(input.setup)),
    validate: sha256(canonicalJson(input.validate)),
    settings: input.settings,
    network: input.network,
  };
}

export type ProofValidity = { valid: true } | { valid: false; changed: string[]; reason: string };

/** Whether `proof` still holds for `current`; names every fact that changed. */
export function isProofValid(
  proof: BoxProof | null,
  current: Record<string, string>,
): ProofValidity {
  if (proof === null)
    return { valid: false, changed: [], reason: "no box proof: run `forge box prove`" };
  const names = new Set([...Object.keys(proof.facts), ...Object.keys(current)]);
  const changed = [...names].filter((n) => proof.facts[n] !== current[n]).sort();
  if (changed.length) {
    return {
      valid: false,
      changed,
      reason: `box proof is stale: ${changed.map((n) => `${n} changed`).join(", ")}; run \`forge box prove\` again`,
    };
  }
  if (!proof.ok) {
    const failed = proof.checks.filter((c) => !c.ok).map((c) => c.name);
    return { valid: false, changed: [], reason: `the last box proof failed: ${failed.join(", ")}` };
  }
  return { valid: true };
}
