import type { BuilderCommand } from "./builder-commands.js";
import type { DeploymentConfig } from "./deployment.js";
import type { PackageManager } from "./egress-registries.js";
import type {
  ProviderName,
  ReviewEvent,
  RoleOverrides,
  Stack,
  Tier,
} from "./forge-config-schema.js";
import type { ConfigIssue } from "./issues.js";

/** Which layer of the cascade a value came from (R8.1), or the floor that added it (R8.2). */
export type Origin = "deployment" | `preset:${Stack}` | "repo" | `component:${string}` | "floor";

export interface Sourced<T> {
  value: T;
  origin: Origin;
}

/** A control after the cascade: what runs, where, whether it blocks, and who said so. */
export interface ResolvedControl {
  name: string;
  /** Shell command, or a built-in ("forge:secret-scan", see builtin-controls.ts). */
  run: string;
  advisory: boolean;
  origin: Origin;
  /** Folder the command runs in, relative to the repository root ("." for the root). */
  cwd: string;
}

export interface ResolvedComponent {
  dir: string;
  /** Install commands for this folder, run after the repository's; null when none. */
  setup: Sourced<string[]> | null;
  /** Only the controls this component declares; the repository's controls apply as well. */
  controls: Record<string, ResolvedControl>;
}

export interface ResolvedConfig {
  /** Stacks found at the root; the first one's preset is the preset layer. */
  stacks: Stack[];
  preset: Stack | null;
  labels: { change: Sourced<string>; review: Sourced<string> };
  chains: {
    change: { enabled: Sourced<boolean> };
    review: { enabled: Sourced<boolean>; events: Sourced<ReviewEvent[]> };
  };
  setup: Sourced<string[]>;
  /** Root controls; the floor guarantees `test` and `security` are present. */
  controls: Record<string, ResolvedControl>;
  components: Record<string, ResolvedComponent>;
  /** Deployment patterns first, then the repository's additions; never fewer. */
  protectedPaths: Array<{ pattern: string; origin: Origin }>;
  handbook: Sourced<{ repo: string; ref: string }> | null;
  provider: { name: Sourced<ProviderName>; models: Record<Tier, Sourced<string> | null> };
  budgets: {
    maxTurns: Sourced<number> | null;
    maxBudgetUsd: Sourced<number> | null;
    requestBudget: Sourced<number>;
  };
  /** The largest diff, in bytes, the reviewer and security are shown whole (R4.7). */
  review: { maxDiffBytes: Sourced<number> };
  trusted: Array<{ login: string; origin: Origin }>;
  /**
   * What the run adds to the builder's allow list (read-only roles get nothing): the exact
   * commands of the controls and the preset, then the repository's `builder.allow`.
   */
  builder: { allow: BuilderCommand[] };
  /**
   * What the boxes may reach through the egress proxy besides the agent's model endpoint
   * (egress-policy.ts turns this and the host's registries into the allowlists). Additive:
   * the deployment's entries first, then the repository's; never fewer.
   */
  network: ResolvedNetwork;
  /** The repository's role overrides, applied by freezeRegistry (registry.ts). */
  roleOverrides: RoleOverrides;
  /** For `forge config explain`: every layer that set each key, lowest layer first. */
  trace: Record<string, Array<{ origin: Origin; value: unknown }>>;
  /** Warnings: things that were ignored (an un-protect attempt, a second stack, …). */
  notices: ConfigIssue[];
}

export type { DeploymentConfig };

/** A host entry (canonical text, egress-entry.ts) and the layer that added it. */
export interface SourcedHost {
  entry: string;
  origin: Origin;
}

export interface ResolvedNetwork {
  /**
   * The package managers whose registries the setup phase may reach, and why: a detected
   * stack (`preset:<stack>`), or a setup command of that layer that runs the manager.
   */
  registries: Array<{ manager: PackageManager; origin: Origin }>;
  /** More hosts for the setup phase. */
  setup: SourcedHost[];
  /** Hosts for the controls and scripts/verify.sh (none unless a layer adds some). */
  controls: SourcedHost[];
}
