import type { Role } from "../roles/role-names.js";
import {
  type ConfigSource,
  type GitRunner,
  readConfigSource,
  resolveFromSource,
} from "./config-source.js";
import type { DeploymentConfig } from "./deployment.js";
import type { ParsedForgeConfig } from "./forge-config-parse.js";
import { FORGE_CONFIG_PATH } from "./forge-config-schema.js";
import type { ConfigIssue } from "./issues.js";
import type { Profile } from "./profile-schema.js";
import { type FrozenRegistry, freezeRegistry, type RoleDocument } from "./registry.js";
import { defaultRoleDocument } from "./registry-default.js";
import type { ResolvedConfig } from "./resolved-config.js";

export interface RepoPolicy {
  source: ConfigSource;
  parsed: ParsedForgeConfig | null;
  config: ResolvedConfig;
  /** The role registry frozen with the repository's overrides (R8.5). */
  registry: FrozenRegistry;
  /** Everything ignored or worth knowing, with positions: config notices + registry notices. */
  warnings: ConfigIssue[];
}

export interface RepoPolicyDeps {
  git: GitRunner;
  /** The four role profiles (loadProfiles(<install>/profiles)). */
  profiles: Record<Role, Profile>;
  deployment?: DeploymentConfig;
  /** The platform registry; defaultRoleDocument(profiles) when absent. */
  roleDocument?: RoleDocument;
}

/**
 * Everything `forge config check` shows, for one repository: read the default branch's
 * .github/forge.yml, cascade, floor, freeze the registry. Throws ConfigError (every issue)
 * when the repository must be refused — before anything runs.
 */
export async function loadRepoPolicy(repoDir: string, deps: RepoPolicyDeps): Promise<RepoPolicy> {
  const source = await readConfigSource(repoDir, deps.git);
  const { parsed, config } = resolveFromSource(source, deps.deployment);
  const registry = freezeRegistry(
    deps.roleDocument ?? defaultRoleDocument(deps.profiles),
    config.roleOverrides,
    {
      handbook: config.handbook?.value ?? null,
      requestBudget: config.budgets.requestBudget.value,
    },
  );
  const warnings: ConfigIssue[] = [
    ...config.notices,
    ...registry.notices.map((notice) => ({
      severity: "warning" as const,
      code: "role_override_ignored",
      file: FORGE_CONFIG_PATH,
      path: ["roles", ...notice.path].join("."),
      ...(parsed?.locate(
        notice.layer < 0 ? ["budgets", "request_budget"] : ["roles", ...notice.path],
      ) ?? {}),
      message: notice.message,
    })),
  ];
  return { source, parsed, config, registry, warnings };
}
