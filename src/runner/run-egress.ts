// The egress side of a runner (R4.6): the deployment's mode, the allowlist of each phase and the
// doors that enforce them. Decided here, from the deployment's environment, the host's package
// registry configuration and the repository's resolved config — never by an agent.
import type { BoxUser } from "../boxes/box-user.js";
import type { BoxKind, NetworkSeam } from "../boxes/types.js";
import {
  deploymentEgress,
  EGRESS_MODE_EVENT,
  type EgressMode,
  egressAllowlists,
  egressMode,
  type ResolvedConfig,
  registryEntry,
  registryEnv,
} from "../policy/index.js";
import { agentEgress } from "./agent-egress.js";
import { type Door, type DoorSpec, egressControlled, openDoor } from "./egress-door.js";
import { readHostRegistries } from "./host-registries.js";
import type { RunNetwork } from "./run-output.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface PhaseRules {
  /** The setup phase: the stacks' registries, then the deployment's and the repository's hosts. */
  setup: string[];
  /** Variables that make the setup box's package managers use the host's registries. */
  setupEnv: Record<string, string>;
  /** The controls and scripts/verify.sh: only hosts the deployment or the repository allows. */
  controls: string[];
}

export interface RunEgress {
  mode: EgressMode;
  /** Boxes go through the proxy (bwrap under FORGE_EGRESS=proxy). */
  controlled: boolean;
  phaseRules(): Promise<PhaseRules>;
  door(spec: DoorSpec): Promise<Door>;
  /** The journal's once-per-run `egress.mode` event. */
  modeEvent(): { type: string; data: Record<string, unknown> };
  /** What the run output says about the network: the mode, each phase's list, the refusals. */
  network(denied: RunNetwork["denied"]): Promise<RunNetwork>;
  /**
   * The seam of a box that is only described, never started: the network its kind gets. A
   * started box gets the seam of its own door (egress-door.ts); a proxy box without one fails
   * to start rather than share the host network.
   */
  describedSeam: NetworkSeam;
}

export function createRunEgress(o: {
  hostEnv: Env;
  boxKind: BoxKind;
  boxUser: BoxUser;
  installRoot: string;
  config: ResolvedConfig | null;
  /** The agents' provider and credential, for the run output's list (agent-egress.ts). */
  agent?: { provider: string; credentials: Record<string, string>; loginFile: boolean };
}): RunEgress {
  // A bad FORGE_EGRESS stops the runner before any run (EgressConfigError names the fix).
  const mode = egressMode(o.hostEnv);
  const deployment = deploymentEgress(o.hostEnv);
  const deps = { mode, boxKind: o.boxKind, boxUser: o.boxUser, installRoot: o.installRoot };
  const controlled = egressControlled(deps);
  let rules: Promise<PhaseRules> | undefined;
  const modeEvent = () => {
    if (mode === "host") {
      // The renderers name FORGE_EGRESS=host themselves when no other reason is given.
      return { type: EGRESS_MODE_EVENT, data: { mode: "host" } };
    }
    if (!controlled) {
      return {
        type: EGRESS_MODE_EVENT,
        data: {
          mode: "host",
          reason: `${o.boxKind} boxes have no egress control yet`,
        },
      };
    }
    return { type: EGRESS_MODE_EVENT, data: { mode: "proxy" } };
  };
  return {
    mode,
    controlled,
    phaseRules() {
      rules ??= readHostRegistries(o.hostEnv).then((host) => {
        const lists = o.config
          ? egressAllowlists(o.config, host)
          : { agent: [], setup: [], controls: [] };
        return {
          setup: [...new Set([...lists.setup, ...deployment.setup])],
          setupEnv: registryEnv(host),
          controls: [...new Set([...lists.controls, ...deployment.controls])],
        };
      });
      return rules;
    },
    door: (spec) => openDoor(deps, spec),
    modeEvent,
    describedSeam: controlled
      ? { mode: "proxy", proxySocket: "/nonexistent/forge-egress-door-not-opened" }
      : { mode: "host" },
    async network(denied) {
      const agent = agentEgress({
        provider: o.agent?.provider ?? "claude",
        credentials: o.agent?.credentials ?? {},
        loginFile: o.agent?.loginFile ?? false,
        controlled,
      });
      const event = modeEvent();
      const reason = typeof event.data.reason === "string" ? event.data.reason : undefined;
      const phase = await this.phaseRules();
      return {
        mode: controlled ? "proxy" : "host",
        ...(reason ? { reason } : {}),
        allowed: {
          agent: agent.gateway ? [endpointEntry(agent.gateway.upstream)] : agent.rules,
          setup: phase.setup,
          controls: phase.controls,
          verify: phase.controls,
        },
        credential: agent.credential,
        denied,
      };
    },
  };
}

/** The model endpoint as a host entry, for the run output's list. */
function endpointEntry(url: string): string {
  return registryEntry(url) ?? url;
}
