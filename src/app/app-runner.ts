/**
 * The App's StepRunner: one engine serves every repository, but each run must run under its
 * own repository's policy as it was when the run started (R8.5). The resolved config is
 * frozen into the run's snapshot; this runner builds a local runner per run from it, so a
 * restart recovers a run with exactly the policy it started with.
 */
import { join } from "node:path";
import type { BoxKind } from "../boxes/types.js";
import type { Logger, StepRunner } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { loadProfiles, type ResolvedConfig } from "../policy/index.js";
import { createProvider, resolveClaudeBinary } from "../providers/index.js";
import type { RunnerLimits } from "../runner/index.js";
import { createLocalRunner } from "../runner/index.js";
import { branchLease } from "./branch-plan.js";

export interface AppRunnerOptions {
  forgeHome: string;
  installRoot: string;
  boxKind: BoxKind;
  ownWork: boolean;
  hostEnv: Record<string, string | undefined>;
  loginFile?: string;
  stepTimeoutMs?: number;
  /** FORGE_IDLE_TIMEOUT, FORGE_VERIFY_TIMEOUT (runner-limits.ts). */
  limits?: RunnerLimits;
  logger: Logger;
  remoteAuth: (run: RunRecord) => Promise<Record<string, string>>;
  /** False: the steps run elsewhere and set up there (LocalRunnerOptions.runSetup). */
  runSetup?: boolean;
}

export function frozenConfig(run: RunRecord): ResolvedConfig | null {
  const config = run.snapshot.content.config;
  return config && typeof config === "object" ? (config as ResolvedConfig) : null;
}

export function createAppRunner(opts: AppRunnerOptions): StepRunner {
  const profiles = loadProfiles(join(opts.installRoot, "profiles"));
  const runners = new Map<string, StepRunner>();

  function runnerFor(run: RunRecord): StepRunner {
    let runner = runners.get(run.id);
    if (!runner) {
      const config = frozenConfig(run);
      const name = config?.provider.name.value ?? "claude";
      runner = createLocalRunner({
        forgeHome: opts.forgeHome,
        installRoot: opts.installRoot,
        provider: createProvider(name, {
          ...(name === "claude" ? { binary: resolveClaudeBinary(opts.installRoot) } : {}),
        }),
        boxKind: opts.boxKind,
        ownWork: opts.ownWork,
        hostEnv: opts.hostEnv,
        profiles,
        config,
        ...(opts.loginFile ? { claudeCredentialsFile: opts.loginFile } : {}),
        ...(opts.stepTimeoutMs ? { stepTimeoutMs: opts.stepTimeoutMs } : {}),
        ...(opts.limits ?? {}),
        logger: opts.logger,
        remoteAuth: opts.remoteAuth,
        // A new run on an issue replaces the branch forgechain pushed earlier — never a human's
        // commits (branch-plan.ts: the lease is the head seen when the run started).
        branchLease,
        ...(opts.runSetup === false ? { runSetup: false } : {}),
      });
      runners.set(run.id, runner);
    }
    return runner;
  }

  return {
    // The repository's `setup:` commands, once per run before its first step, as `forge run`
    // runs them (and the base measured there).
    prepareRun: async (input) => {
      const prepare = runnerFor(input.run).prepareRun;
      return prepare ? prepare(input) : { ok: true, reasons: [], events: [] };
    },
    runStep: (input) => runnerFor(input.run).runStep(input),
    async finishRun(run, steps) {
      try {
        return await runnerFor(run).finishRun(run, steps);
      } finally {
        runners.delete(run.id);
      }
    },
  };
}
