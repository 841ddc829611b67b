// Composition root for local work (`forge run`, `forge demo`, `forge status`): the journal,
// the policy of the repository, the provider, the local runner and the engine, wired with
// their real implementations. Nothing here is a module singleton.
import { join } from "node:path";
import type { BoxKind } from "../../boxes/types.js";
import { type ChainEngine, createChainEngine } from "../../chain/engine.js";
import { randomIds } from "../../chain/ids.js";
import type { ChainObserver, JournalStore, Logger } from "../../chain/ports.js";
import { loadProfiles } from "../../policy/index.js";
import type { RepoPolicy } from "../../policy/repo-policy.js";
import { createProvider, resolveClaudeBinary } from "../../providers/index.js";
import type { ProviderName } from "../../providers/types.js";
import { createLocalRunner, type LocalRunnerOptions } from "../../runner/local-runner.js";
import type { RunnerLimits } from "../../runner/runner-limits.js";
import { currentDriver, driverFromData, driverLiveness } from "../../store/driver-identity.js";
import { openStore } from "../../store/open-store.js";
import { cliRunnerLimits as runnerLimits } from "./cli-limits.js";

export interface LocalStackOptions {
  root: string;
  forgeHome: string;
  env: Record<string, string | undefined>;
  box: BoxKind;
  ownWork: boolean;
  provider: ProviderName;
  policy: RepoPolicy | null;
  loginFile?: string;
  observer?: ChainObserver;
  logger?: Logger;
  stepTimeoutMs?: number;
  /** Another profiles/ directory (default: the installation's). */
  profilesDir?: string;
  /** Another claude binary (tests: a crashing agent). */
  claudeBinary?: string;
  /** What drives runs in this process, journaled with its pid ("forge run", "forge resume"). */
  command?: string;
}

export interface LocalStack {
  engine: ChainEngine;
  store: JournalStore;
  close(): Promise<void>;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export function openLocalStack(
  opts: LocalStackOptions,
  store = openStore(opts.forgeHome, opts.env),
): LocalStack {
  const logger = opts.logger ?? silentLogger;
  const provider = createProvider(opts.provider, {
    ...(opts.provider === "claude"
      ? { binary: opts.claudeBinary ?? resolveClaudeBinary(opts.root) }
      : {}),
  });
  // FORGE_IDLE_TIMEOUT and FORGE_VERIFY_TIMEOUT, checked before anything starts.
  const limits = runnerLimits(opts.env);
  const runnerOptions: LocalRunnerOptions & RunnerLimits = {
    ...limits,
    forgeHome: opts.forgeHome,
    installRoot: opts.root,
    provider,
    boxKind: opts.box,
    ownWork: opts.ownWork,
    hostEnv: opts.env,
    profiles: loadProfiles(opts.profilesDir ?? join(opts.root, "profiles")),
    config: opts.policy?.config ?? null,
    ...(opts.loginFile ? { claudeCredentialsFile: opts.loginFile } : {}),
    ...(opts.stepTimeoutMs ? { stepTimeoutMs: opts.stepTimeoutMs } : {}),
    logger,
  };
  const runner = createLocalRunner(runnerOptions);
  const engine = createChainEngine({
    store,
    runner,
    clock: { now: () => new Date() },
    logger,
    ids: randomIds(),
    ...(opts.observer ? { observer: opts.observer } : {}),
    // The box kind goes with it: `forge resume` continues a run in the kind it ran in.
    driver: { ...currentDriver(opts.command ?? "forge"), box: opts.box },
    driverAlive: (record) => driverLiveness(driverFromData(record)).state === "alive",
  });
  return {
    engine,
    store,
    close: async () => {
      await engine.idle();
      await store.close();
    },
  };
}

/**
 * An engine on the journal alone, for commands that only change a run's state (`forge cancel`,
 * `forge answer`): it has no runner, so it can never start a step.
 */
export function journalEngine(store: JournalStore): ChainEngine {
  const noRunner = () => {
    throw new Error("this command only changes the journal; it runs no step");
  };
  return createChainEngine({
    store,
    runner: { runStep: noRunner, finishRun: noRunner },
    clock: { now: () => new Date() },
    logger: silentLogger,
    ids: randomIds(),
  });
}

export { openStore };
