/**
 * Wiring the App's parts with their real implementations: journal, engine, App runner
 * (local runner per run, installation token for git only), reporter, gatekeeper, mirrors,
 * queue, box gate, snapshots. Tests pass their own runner (the layer below the engine) or
 * box gate; nothing else is faked.
 */
import { readFileSync } from "node:fs";
import { createChainEngine } from "../chain/engine.js";
import { randomIds } from "../chain/ids.js";
import type { LeaseOptions } from "../chain/leases.js";
import type { ChainObserver, Clock, JournalStore, Logger, StepRunner } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import type { RunnerLimits } from "../runner/index.js";
import { createSealer } from "../seal/index.js";
import {
  knownSecretsFromEnv,
  knownSecretsFromJson,
  registerKnownSecretBytes,
  registerKnownSecrets,
} from "../secrets/index.js";
import { currentDriver, driverFromData, driverLiveness } from "../store/driver-identity.js";
import { createActionsRunner, runWorkPort } from "./actions-runner.js";
import { type ActionsStepsOptions, createActionsSteps } from "./actions-steps.js";
import { RecentDeliveries } from "./app.js";
import { createAppRunner } from "./app-runner.js";
import { realBoxGate, realSnapshots } from "./box-snapshot.js";
import { withPlannedBranch } from "./branch-plan.js";
import { createGatekeeper } from "./gatekeeper.js";
import { gitAuthEnv } from "./git-auth.js";
import type { Installations } from "./installations.js";
import { createJobQueue } from "./queue.js";
import { createRepoMirrors } from "./repo-mirror.js";
import { createReporter } from "./reporter.js";
import { githubContextOf, RunIndex } from "./run-context.js";
import type { AppServices, BoxGate, DeploymentSettings, SnapshotMaker } from "./services.js";

export interface ComposeInput {
  settings: DeploymentSettings;
  store: JournalStore;
  installations: Installations;
  gateKey: Buffer;
  /** Set when answers cannot be sealed here (the Action without `gate_secret`): the reason. */
  unsealable?: string;
  logger: Logger;
  clock?: Clock;
  maxParallel?: number;
  stepTimeoutMs?: number;
  /** FORGE_IDLE_TIMEOUT, FORGE_VERIFY_TIMEOUT (runner-limits.ts). */
  limits?: RunnerLimits;
  stickyDelayMs?: number;
  /** Background jobs at once; default 2 (the machine's cores run the agents). */
  jobConcurrency?: number;
  runner?: StepRunner;
  /** Told of the engine's events too, after the reporter (the Action's per-step log groups). */
  observer?: ChainObserver;
  boxGate?: BoxGate;
  snapshots?: SnapshotMaker;
  /**
   * Set where other processes share the journal (replicas on PostgreSQL): runs are driven under
   * a lease, and the run index reads runs other replicas started.
   */
  lease?: LeaseOptions;
  /** Set to run role steps on GitHub Actions jobs instead of this machine's boxes. */
  actions?: ActionsRunnerSettings;
}

/** The Actions steps' settings a deployment chooses (actions-steps.ts). */
export type ActionsRunnerSettings = Omit<ActionsStepsOptions, "store" | "installations" | "clock">;

export function composeServices(input: ComposeInput): AppServices {
  const { settings, store, installations, logger } = input;
  registerDeploymentSecrets(settings, input.gateKey);
  const clock = input.clock ?? { now: () => new Date() };
  const index = new RunIndex(store, { shared: Boolean(input.lease) });
  const reporter = createReporter({
    store,
    installations,
    forgeHome: settings.forgeHome,
    logger,
    index,
    ...(input.stickyDelayMs !== undefined ? { stickyDelayMs: input.stickyDelayMs } : {}),
  });
  // Asked at clone and push time, so a chain longer than a token's hour still pushes.
  const remoteAuth = async (run: RunRecord) => {
    const ctx = githubContextOf(run);
    return ctx ? gitAuthEnv(await installations.token(ctx.installationId)) : {};
  };
  const appRunner = (o: { runSetup?: boolean } = {}) =>
    createAppRunner({
      forgeHome: settings.forgeHome,
      installRoot: settings.installRoot,
      boxKind: settings.box,
      ownWork: settings.ownWork,
      hostEnv: settings.env,
      ...(settings.loginFile ? { loginFile: settings.loginFile } : {}),
      ...(input.stepTimeoutMs ? { stepTimeoutMs: input.stepTimeoutMs } : {}),
      ...(input.limits ? { limits: input.limits } : {}),
      logger,
      remoteAuth,
      ...o,
    });
  // Steps on Actions: the App keeps the base, the work and the finish; jobs run the steps.
  const actionsRunner = (a: ActionsRunnerSettings) =>
    createActionsRunner({
      home: appRunner({ runSetup: false }),
      steps: createActionsSteps({ store, installations, clock, ...a }),
      work: runWorkPort(settings.forgeHome, remoteAuth),
      store,
    });
  // The branch a change run pushes to is chosen when it starts (branch-plan.ts).
  const runner = withPlannedBranch(
    input.runner ?? (input.actions ? actionsRunner(input.actions) : appRunner()),
  );
  const engine = createChainEngine({
    store,
    runner,
    clock,
    logger,
    ids: randomIds(),
    maxParallel: input.maxParallel ?? 2,
    observer: input.observer ? both(reporter, input.observer) : reporter,
    // Which process drives a run (a `forge run` beside `forge serve` must not be driven twice).
    driver: { ...currentDriver("forge serve") },
    driverAlive: (record) => driverLiveness(driverFromData(record)).state === "alive",
    ...(input.lease ? { lease: input.lease } : {}),
  });
  const gatekeeper = createGatekeeper({
    store,
    engine,
    sealer: createSealer({ key: input.gateKey, clock }),
    ...(input.unsealable ? { unsealable: input.unsealable } : {}),
    logger,
    onChange: (runId, options) => reporter.refresh(runId, options),
  });
  return {
    settings,
    store,
    engine,
    index,
    installations,
    mirrors: createRepoMirrors(settings.forgeHome),
    gatekeeper,
    reporter,
    queue: createJobQueue({ concurrency: input.jobConcurrency ?? 2, logger }),
    deliveries: new RecentDeliveries(),
    // With steps on Actions no agent runs here: each job proves its own runner's box.
    boxGate:
      input.boxGate ?? (input.actions ? { check: async () => null } : realBoxGate(settings, store)),
    snapshots: input.snapshots ?? realSnapshots(settings),
    triggerLabels: new Map(),
    logger,
  };
}

/**
 * Every secret value the deployment holds is searched, in any encoding, in every text the App
 * scans: diffs, role outputs, run output, the push check (R3.3). Installation tokens are
 * registered as they are fetched (gitAuthEnv). Idempotent: registering twice changes nothing.
 */
export function registerDeploymentSecrets(
  settings: Pick<DeploymentSettings, "env" | "loginFile">,
  gateKey: Buffer,
): void {
  registerKnownSecrets(knownSecretsFromEnv(settings.env));
  registerKnownSecretBytes(gateKey);
  const files: [string | undefined, (text: string) => string[]][] = [
    [settings.env.PRIVATE_KEY_PATH, (text) => [text]],
    [settings.loginFile, knownSecretsFromJson],
  ];
  for (const [path, valuesOf] of files) {
    if (!path) continue;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue; // Probot and the credential check report a missing file; nothing to search
    }
    registerKnownSecrets(valuesOf(text));
  }
}

/** Two observers as one: each is told everything, in order. */
function both(a: ChainObserver, b: ChainObserver): ChainObserver {
  return {
    events(runId, events) {
      a.events?.(runId, events);
      b.events?.(runId, events);
    },
    progress(runId, progress) {
      a.progress?.(runId, progress);
      b.progress?.(runId, progress);
    },
  };
}
