/**
 * Everything the handlers need, passed in (no module singletons): built once by server.ts
 * for `forge serve`, and by the tests with real parts and a scripted StepRunner.
 */
import type { BoxKind } from "../boxes/types.js";
import type { ChainEngine } from "../chain/engine.js";
import type { JournalStore, Logger } from "../chain/ports.js";
import type { DeploymentConfig, ResolvedConfig } from "../policy/index.js";
import type { RecentDeliveries } from "./app.js";
import type { Gatekeeper } from "./gatekeeper.js";
import type { Installations } from "./installations.js";
import type { JobQueue } from "./queue.js";
import type { RepoMirrors } from "./repo-mirror.js";
import type { Reporter } from "./reporter.js";
import type { RunIndex } from "./run-context.js";

export interface DeploymentSettings {
  installRoot: string;
  forgeHome: string;
  /** Host environment for boxes and proofs (the agent env is an allowlist of it). */
  env: Record<string, string | undefined>;
  box: BoxKind;
  ownWork: boolean;
  /** Prove a repository's box when its proof is missing or stale (R7.2); else refuse. */
  autoProve: boolean;
  /** FORGE_TRUSTED. */
  trusted: string[];
  /** Base URL of the git host (gitWebBase). */
  gitBase: string;
  loginFile?: string;
  deployment?: DeploymentConfig;
}

export interface BoxGate {
  /** Null when the repository's box may run, else the refusal. */
  check(input: { mirrorDir: string; config: ResolvedConfig }): Promise<string | null>;
}

export interface SnapshotMaker {
  build(input: {
    mirrorDir: string;
    ref: string;
    registry: unknown;
    /** The repository's resolved config: the builder's commands are frozen with the run. */
    config?: Pick<ResolvedConfig, "builder">;
  }): Promise<Record<string, unknown>>;
}

export interface AppServices {
  settings: DeploymentSettings;
  store: JournalStore;
  engine: ChainEngine;
  index: RunIndex;
  installations: Installations;
  mirrors: RepoMirrors;
  gatekeeper: Gatekeeper;
  reporter: Reporter;
  queue: JobQueue;
  deliveries: RecentDeliveries;
  boxGate: BoxGate;
  snapshots: SnapshotMaker;
  /**
   * Per repository (owner/name), the trigger labels its config named when last read: a job that
   * fails before the config is read answers an event carrying one of them (job-failure.ts).
   */
  triggerLabels: Map<string, string[]>;
  logger: Logger;
  /**
   * Told of every reply to a `/forge` command, and whether it refused it (the Action fails its
   * step on a refusal: the human sees a red job, not only a reply on the issue).
   */
  commandReplies?: (reply: CommandReply) => void;
}

/** A reply to a `/forge` command; `refused`: nothing was done, the reply says why. */
export interface CommandReply {
  text: string;
  refused: boolean;
}
