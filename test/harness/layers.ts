/**
 * Settings for proving each defence layer on its own (R4.1, R4.2): the real role settings
 * without hooks (only the permission rules stand), and the real hooks behind permissions that
 * allow every tool (only the guard stands). The real run uses `effectiveSettings(role)` as is.
 */
import type { Role } from "../../src/roles/role-names.js";
import { effectiveSettings, type RoleSettings } from "../../src/roles/settings.js";

export type Variant = "real" | "settings-only" | "guard-only";

export const ALL_TOOLS_ALLOWED = [
  "Bash",
  "Read",
  "Edit",
  "Write",
  "NotebookEdit",
  "Glob",
  "Grep",
  "WebFetch",
  "Monitor",
];

export function variantSettings(role: Role, variant: Variant): RoleSettings {
  const real = effectiveSettings(role);
  if (variant === "real") return real;
  if (variant === "settings-only") return { ...real, hooks: {} };
  return {
    ...real,
    permissions: {
      defaultMode: "dontAsk",
      disableBypassPermissionsMode: "disable",
      allow: ALL_TOOLS_ALLOWED,
      deny: [],
    },
    // The Stop hook is the builder's, not a refusal layer; keep only the guard.
    hooks: { PreToolUse: real.hooks.PreToolUse ?? [] },
  };
}
