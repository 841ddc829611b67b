// The enforcement step of a proof (prove.ts), per role: the role's effective settings are
// written where the box reads them, then its agent is tried against them (enforcement-check.ts).
// Apart from prove.ts because settings are read for every role up front, and one that cannot
// be read must fail only its own role's check, with the fix — not the whole proof.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Role } from "../roles/role-names.js";
import { type EnforcementInput, enforcementCheck } from "./enforcement-check.js";
import type { ProveCheck } from "./prove-types.js";

/** Each role's settings, or the Error reading them threw (reported by that role's check). */
export function settingsByRole(
  roles: readonly Role[],
  settingsFor: (role: Role) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(roles.map((r) => [r, safe(() => settingsFor(r))]));
}

export function roleEnforcementCheck(
  settings: unknown,
  settingsDir: string,
  input: Omit<EnforcementInput, "settingsFile">,
): Promise<ProveCheck> | ProveCheck {
  if (settings instanceof Error) {
    return {
      name: `enforcement: ${input.role}`,
      ok: false,
      detail: settings.message,
      fix: "restore settings/<role>.json",
    };
  }
  const file = join(settingsDir, `${input.role}.json`);
  writeFileSync(file, JSON.stringify(settings));
  return enforcementCheck({ ...input, settingsFile: file });
}

function safe<T>(fn: () => T): T | Error {
  try {
    return fn();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
