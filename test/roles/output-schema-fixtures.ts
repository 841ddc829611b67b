import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Role } from "../../src/roles/role-names.js";

export const REPO = join(import.meta.dirname, "..", "..");
export const OUTPUTS = join(REPO, "fixtures", "outputs");

/** A recorded `--output-format json` result of the real CLI (see fixtures/outputs/README.md). */
export function envelope(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(OUTPUTS, `${name}.json`), "utf8")) as Record<string, unknown>;
}

/** A schema-valid PASS output of a role, taken from its recorded envelope. */
export function validOutput(role: Role): Record<string, unknown> {
  return structuredClone(envelope(`${role}-pass`).structured_output) as Record<string, unknown>;
}

export const ROLE_FIELD: Record<Role, string> = {
  architect: "plan",
  builder: "evidence",
  reviewer: "findings",
  security: "findings",
};
