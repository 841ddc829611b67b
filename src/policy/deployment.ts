import {
  type ControlSpec,
  DIFF_LIMIT,
  type ProviderName,
  type ReviewEvent,
  type Tier,
} from "./forge-config-schema.js";
import { DEFAULT_PROTECTED_PATHS } from "./protected-paths.js";

/**
 * What the operator of a forge deployment sets for every repository: the bottom layer of the
 * cascade (R8.1). Everything here is a default a repository may override, except the
 * protected paths (a repository can only add) and the floor (src/policy/floor.ts), which is
 * applied after the cascade and is not part of this object.
 */
export interface DeploymentConfig {
  labels: { change: string; review: string };
  chains: {
    change: { enabled: boolean };
    review: { enabled: boolean; events: ReviewEvent[] };
  };
  setup: string[];
  validate: Record<string, ControlSpec>;
  protected_paths: string[];
  handbook?: { repo: string; ref: string };
  provider: {
    name: ProviderName;
    /** Per provider, the model of each tier; a missing tier leaves the CLI's own default. */
    models: Record<ProviderName, Partial<Record<Tier, string>>>;
  };
  budgets: { max_turns?: number; max_budget_usd?: number; request_budget: number };
  /** The largest diff the reviewer and security are shown, in bytes (see DIFF_LIMIT). */
  review: { max_diff_bytes: number };
  trusted: string[];
  /**
   * Hosts the boxes of every repository may reach through the egress proxy, per phase
   * (FORGE_EGRESS_SETUP, FORGE_EGRESS_CONTROLS: egress-env.ts). A repository adds to them and
   * cannot remove one; the agent steps are not configurable here or anywhere.
   */
  network?: { setup?: string[]; controls?: string[] };
}

export const DEFAULT_DEPLOYMENT: DeploymentConfig = {
  labels: { change: "forge", review: "forge:review" },
  chains: { change: { enabled: true }, review: { enabled: true, events: [] } },
  setup: [],
  validate: {},
  protected_paths: [...DEFAULT_PROTECTED_PATHS],
  provider: {
    name: "claude",
    // Claude Code accepts these aliases for --model; they follow the current model family.
    models: { claude: { fast: "haiku", balanced: "sonnet", deep: "opus" }, codex: {} },
  },
  budgets: { request_budget: 3 },
  review: { max_diff_bytes: DIFF_LIMIT.default },
  trusted: [],
  network: { setup: [], controls: [] },
};
