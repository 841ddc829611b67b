import type { ControlSpec } from "./forge-config-schema.js";
import type { ConfigIssue, Position } from "./issues.js";
import type { ResolvedControl } from "./resolved-config.js";

/** R8.2: these controls must exist after the cascade, or nothing runs. */
export const FLOOR_CONTROLS = ["test", "security"] as const;

/**
 * R8.3: the deployment floor's `security` control, inherited by every repository that does
 * not declare one: a credential scan of the tracked files, advisory.
 */
export const FLOOR_SECURITY_CONTROL: Required<ControlSpec> = {
  run: "forge:secret-scan",
  advisory: true,
};

export interface FloorResult {
  controls: Record<string, ResolvedControl>;
  /** What the floor added (its origin is "floor"). */
  added: string[];
  /** Errors: a mandatory control the floor cannot supply (`test`). */
  issues: ConfigIssue[];
}

/**
 * Applies the floor to the root controls after the cascade. Inheritance only ADDS a missing
 * control; a declared control is kept exactly as written — the floor checks that it exists,
 * not what it runs (a repository may replace the command or make it advisory).
 */
export function applyFloor(
  controls: Record<string, ResolvedControl>,
  where: { file: string; position?: Position; exists?: boolean },
): FloorResult {
  const out = { ...controls };
  const added: string[] = [];
  const issues: ConfigIssue[] = [];
  if (!out.security) {
    out.security = { name: "security", ...FLOOR_SECURITY_CONTROL, origin: "floor", cwd: "." };
    added.push("security");
  }
  if (!out.test) {
    issues.push({
      severity: "error",
      code: "floor_missing_control",
      file: where.file,
      path: "validate.test",
      ...(where.position ?? {}),
      message:
        'no "test" control: the quality floor requires the controls test and security, and no layer (deployment, stack preset, repository, components) declares test',
      expected: "validate.test with a run: command",
      fix: `${where.exists === false ? "create" : "add to"} ${where.file}:  validate: { test: { run: "<your test command>" } }`,
    });
  }
  return { controls: out, added, issues };
}
