// The facts a stored proof is compared with, measured now WITHOUT running the proof: what the
// runner calls before picking up work (R7.2: "work is not picked up for a repo whose box has
// no valid proof; the refusal says which fact changed").
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ROLES, type Role } from "../roles/role-names.js";
import { canonicalJson, proofFacts, sha256, type ValidateControl } from "./proof-facts.js";
import { detectToolbox, toolboxFact } from "./toolbox.js";

export interface CurrentFactsInput {
  box: "bwrap" | "worktree";
  setup: readonly string[];
  validate: Record<string, ValidateControl>;
  claudeBinary: string;
  settingsFor: (role: Role) => unknown;
  roles?: readonly Role[];
  /** The boxes' network as runs would have it: "proxy" or "host" (prove.ts networkMode). */
  network: string;
}

/** sha256 over the effective settings of the roles, the way prove records it. */
export function settingsDigest(
  roles: readonly Role[],
  settingsFor: (role: Role) => unknown,
): string {
  const entries = roles.map((r) => {
    try {
      return [r, settingsFor(r)];
    } catch {
      // prove records a role whose settings do not load as {} (and fails it).
      return [r, {}];
    }
  });
  return sha256(canonicalJson(Object.fromEntries(entries)));
}

/** The harness version string a proof records, e.g. "claude 2.1.332"; "unknown" if it fails. */
export async function harnessFact(claudeBinary: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(claudeBinary, ["--version"], { timeout: 60_000 });
    const v = /(\d+\.\d+\.\d+)/.exec(stdout)?.[1];
    return v ? `claude ${v}` : "unknown";
  } catch {
    return "unknown";
  }
}

export async function measureProofFacts(input: CurrentFactsInput): Promise<Record<string, string>> {
  return proofFacts({
    boxKind: input.box,
    image: "none",
    toolbox: toolboxFact(detectToolbox()),
    harness: await harnessFact(input.claudeBinary),
    setup: input.setup,
    validate: input.validate,
    settings: settingsDigest(input.roles ?? ROLES, input.settingsFor),
    network: input.network,
  });
}
