import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { installRoot } from "../../install-root.js";
import { builderAllowPatterns } from "../../policy/builder-commands.js";
import { ConfigError, formatIssue } from "../../policy/issues.js";
import { loadProfiles } from "../../policy/profiles.js";
import { loadRepoPolicy } from "../../policy/repo-policy.js";
import { isRole, ROLES } from "../../roles/role-names.js";
import { effectiveSettings } from "../../roles/settings.js";
import { gitRunnerIn } from "../../runner/git-runner.js";
import { UsageError } from "../usage-error.js";

/**
 * `forge settings <role> [--repo <path>]`: the effective settings JSON, exactly what the
 * runner writes. With --repo, the builder's allow list also holds what that repository's
 * resolved config adds (its controls' and preset's commands, its builder.allow), as a run
 * started there would freeze it.
 */
export function registerSettings(program: Command): void {
  program
    .command("settings")
    .description("print the effective Claude Code settings of a role (hook commands made absolute)")
    .argument("<role>", ROLES.join(" | "))
    .option("--repo <path>", "the repository whose resolved config the run would use")
    .action(async (role: string, options: { repo?: string }) => {
      if (!isRole(role))
        throw new UsageError(`unknown role "${role}" (one of ${ROLES.join(", ")})`);
      const builderCommands = options.repo ? await repoCommands(options.repo) : undefined;
      if (builderCommands === null) return;
      process.stdout.write(
        `${JSON.stringify(effectiveSettings(role, builderCommands ? { builderCommands } : {}), null, 2)}\n`,
      );
    });
}

/** The repository's builder commands, or null after reporting a refused config. */
async function repoCommands(path: string): Promise<string[] | null> {
  const repoDir = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(repoDir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--repo ${repoDir}: not a directory`);
  try {
    const policy = await loadRepoPolicy(repoDir, {
      git: gitRunnerIn(repoDir),
      profiles: loadProfiles(join(installRoot(), "profiles")),
    });
    return builderAllowPatterns(policy.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const issue of error.issues) process.stderr.write(`${formatIssue(issue)}\n`);
    process.stderr.write("forge settings: the repository's config is refused\n");
    process.exitCode = 1;
    return null;
  }
}
