import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { installRoot } from "../../install-root.js";
import {
  type ConfigReportSource,
  formatResolvedConfig,
  resolvedConfigJson,
} from "../../policy/config-report.js";
import { type ConfigSource, readConfigSource } from "../../policy/config-source.js";
import { DEFAULT_DEPLOYMENT } from "../../policy/deployment.js";
import { withDeploymentEgress } from "../../policy/egress-env.js";
import { ExplainError, explain, formatExplanation } from "../../policy/explain.js";
import { FORGE_CONFIG_PATH } from "../../policy/forge-config-schema.js";
import { ConfigError, type ConfigIssue, formatIssue } from "../../policy/issues.js";
import { loadProfiles } from "../../policy/profiles.js";
import { loadRepoPolicy, type RepoPolicy } from "../../policy/repo-policy.js";
import { gitRunnerIn } from "../../runner/git-runner.js";
import { UsageError } from "../usage-error.js";

interface ConfigOptions {
  repo?: string;
  json?: boolean;
}

export function registerConfig(program: Command): void {
  const config = program
    .command("config")
    .description(`check and explain the repository's ${FORGE_CONFIG_PATH}`);
  config
    .command("check")
    .description(
      `validate ${FORGE_CONFIG_PATH} of the default branch and print the resolved config ` +
        "(controls, protected paths, roles, … with where each came from); exit 1 on any error",
    )
    .option("--repo <path>", "the repository (default: the current directory)")
    .option("--json", "print JSON")
    .action(async (options: ConfigOptions) => {
      const loaded = await load(options);
      if (!loaded.ok) return report(loaded, options);
      const { source, config, registry, warnings } = loaded;
      const meta = reportSource(source);
      process.stdout.write(
        options.json
          ? `${JSON.stringify(resolvedConfigJson(config, registry, meta, warnings), null, 2)}\n`
          : formatResolvedConfig(config, registry, meta, warnings),
      );
    });
  config
    .command("explain")
    .description("show the effective value of a key and the layer it came from")
    .argument("<key>", "e.g. validate.test, labels.change, protected_paths, provider.models.deep")
    .option("--repo <path>", "the repository (default: the current directory)")
    .option("--json", "print JSON")
    .action(async (key: string, options: ConfigOptions) => {
      const loaded = await load(options);
      if (!loaded.ok) return report(loaded, options);
      let explanation: ReturnType<typeof explain>;
      try {
        explanation = explain(loaded.config, key);
      } catch (error) {
        if (error instanceof ExplainError) throw new UsageError(error.message);
        throw error;
      }
      process.stdout.write(
        options.json
          ? `${JSON.stringify(explanation, null, 2)}\n`
          : `${formatExplanation(explanation)}\n`,
      );
    });
}

type Loaded =
  | ({ ok: true } & RepoPolicy)
  | { ok: false; source: ConfigSource | null; issues: readonly ConfigIssue[] };

async function load(options: ConfigOptions): Promise<Loaded> {
  const repoDir = resolve(options.repo ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(repoDir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--repo ${repoDir}: not a directory`);
  const git = gitRunnerIn(repoDir);
  try {
    const profiles = loadProfiles(join(installRoot(), "profiles"));
    const deployment = withDeploymentEgress(DEFAULT_DEPLOYMENT, process.env);
    return { ok: true, ...(await loadRepoPolicy(repoDir, { git, profiles, deployment })) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Say where the config was read from even when it is refused.
    const source = await readConfigSource(repoDir, git).catch(() => null);
    return { ok: false, source, issues: error.issues };
  }
}

function report(failed: Extract<Loaded, { ok: false }>, options: ConfigOptions): void {
  if (options.json) {
    const errors = failed.issues.map((i) => ({ ...i, text: formatIssue(i) }));
    const source = failed.source ? reportSource(failed.source) : null;
    process.stdout.write(`${JSON.stringify({ ok: false, source, errors }, null, 2)}\n`);
  } else {
    if (failed.source) process.stderr.write(`${FORGE_CONFIG_PATH}: ${failed.source.note}\n`);
    for (const issue of failed.issues) process.stderr.write(`${formatIssue(issue)}\n`);
    const n = failed.issues.length;
    process.stderr.write(
      `forge config: ${n} error${n === 1 ? "" : "s"}; nothing will run until fixed\n`,
    );
  }
  process.exitCode = 1;
}

function reportSource(source: ConfigSource): ConfigReportSource {
  return {
    file: FORGE_CONFIG_PATH,
    from: source.from,
    ref: source.ref,
    found: source.text !== null,
    note: source.note,
  };
}
