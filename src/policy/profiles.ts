import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROLES, type Role } from "../roles/role-names.js";
import type { Tier } from "./forge-config-schema.js";
import { ConfigError, type ConfigIssue } from "./issues.js";
import { type Profile, ProfileSchema } from "./profile-schema.js";
import type { ResolvedConfig } from "./resolved-config.js";
import { translateZodIssues } from "./schema-issues.js";
import { parseYamlSource } from "./yaml-source.js";

/** Parses one profile; throws ConfigError with file:line:col for every problem. */
export function parseProfile(text: string, file: string, expectedRole?: Role): Profile {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError([
      {
        severity: "error",
        code: "not_json",
        file,
        path: "",
        ...jsonErrorPosition(text, message),
        message: `not valid JSON: ${message}`,
        fix: "write the profile as strict JSON (double quotes, no trailing commas, no comments)",
      },
    ]);
  }
  // JSON is YAML 1.2: the YAML parser gives every node of the JSON a line and column.
  const source = parseYamlSource(text, file);
  const result = ProfileSchema.safeParse(source.data);
  if (!result.success)
    throw new ConfigError(translateZodIssues(ProfileSchema, result.error, source));
  if (expectedRole && result.data.role !== expectedRole) {
    throw new ConfigError([
      {
        severity: "error",
        code: "wrong_role",
        file,
        path: "role",
        ...(source.locate(["role"]) ?? { line: 1, column: 1 }),
        message: `the file is for ${expectedRole} but says role "${result.data.role}"`,
        fix: `set "role": "${expectedRole}" or rename the file`,
      },
    ]);
  }
  return result.data;
}

function jsonErrorPosition(text: string, message: string): { line: number; column: number } {
  const offset = Number(/at position (\d+)/.exec(message)?.[1] ?? 0);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}

/** Reads `<dir>/<role>.json`. */
export function loadProfile(dir: string, role: Role): Profile {
  const file = join(dir, `${role}.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError([
      {
        severity: "error",
        code: "missing_profile",
        file,
        path: "",
        message: `cannot read the profile: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        fix: `create ${role}.json in ${dir}`,
      },
    ]);
  }
  return parseProfile(text, file, role);
}

/** All four role profiles; every problem of every file in one ConfigError. */
export function loadProfiles(dir: string): Record<Role, Profile> {
  const issues: ConfigIssue[] = [];
  const out: Partial<Record<Role, Profile>> = {};
  for (const role of ROLES) {
    try {
      out[role] = loadProfile(dir, role);
    } catch (error) {
      if (error instanceof ConfigError) issues.push(...error.issues);
      else throw error;
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return out as Record<Role, Profile>;
}

export interface ProviderOptions {
  model?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
}

/** The model of each tier, as the resolved config has it (for profileToProviderOptions). */
export function tierModels(config: ResolvedConfig): Partial<Record<Tier, string>> {
  const out: Partial<Record<Tier, string>> = {};
  for (const [tier, model] of Object.entries(config.provider.models)) {
    if (model) out[tier as Tier] = model.value;
  }
  return out;
}

/**
 * What a profile means for the provider call: the model of its tier, and its turn and USD
 * ceilings. `budgets` (the repository's, from the resolved config) can only LOWER a ceiling:
 * the smaller value wins, so a repository cannot buy a role more turns than its profile.
 */
export function profileToProviderOptions(
  profile: Profile,
  tiers: Partial<Record<Tier, string | null | undefined>>,
  budgets?: { maxTurns?: number | null; maxBudgetUsd?: number | null },
): ProviderOptions {
  const out: ProviderOptions = {};
  const model = tiers[profile.model_tier_default];
  if (model) out.model = model;
  const maxTurns = lowest(profile.max_turns, budgets?.maxTurns);
  if (maxTurns !== undefined) out.maxTurns = maxTurns;
  const maxBudgetUsd = lowest(profile.max_budget_usd, budgets?.maxBudgetUsd);
  if (maxBudgetUsd !== undefined) out.maxBudgetUsd = maxBudgetUsd;
  return out;
}

function lowest(a: number | undefined, b: number | null | undefined): number | undefined {
  if (a === undefined) return b ?? undefined;
  if (b === undefined || b === null) return a;
  return Math.min(a, b);
}

export interface BoxOptions {
  /** Mount the repository read-only. */
  readOnlyRepo: boolean;
  /** Workspace-relative paths that stay writable even when the repository is read-only. */
  writeSubpaths: string[];
  /** Workspace-relative paths the box hides (masked): neither readable nor writable. */
  denySubpaths: string[];
  /** Direct network; false still lets the runner's egress allowlist through (R4.6). */
  allowNetwork: boolean;
}

export function profileToBoxOptions(profile: Profile): BoxOptions {
  return {
    readOnlyRepo: profile.sandbox.read_only_repo,
    writeSubpaths: [...profile.sandbox.write_subpaths],
    denySubpaths: [...profile.sandbox.deny_subpaths],
    allowNetwork: profile.sandbox.allow_network,
  };
}

/**
 * The scheduler's single-writer rule (R7.3): two steps may share a worktree at once only if
 * both are parallel-eligible AND neither can write the repository. Checked on both fields so
 * a hand-built profile object that skipped the schema still cannot put two writers together.
 */
export function mayRunInParallel(a: Profile, b: Profile): boolean {
  return (
    a.parallel_eligible &&
    b.parallel_eligible &&
    a.sandbox.read_only_repo &&
    b.sandbox.read_only_repo
  );
}
