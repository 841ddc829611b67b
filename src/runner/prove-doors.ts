// The doors `forge box prove` puts its boxes behind: the runner's own (run-egress.ts), so the
// proof certifies the network runs get — setup behind the setup phase's allowlist, the controls
// behind theirs, the agent's checks and the enforcement check's CLI behind an agent's door.
import type { BoxUser } from "../boxes/box-user.js";
import type { ProveDoors } from "../boxes/prove-egress.js";
import type { BoxKind } from "../boxes/types.js";
import { gatewayEnv } from "../egress/relay-command.js";
import { egressMode, type ResolvedConfig } from "../policy/index.js";
import { CLAUDE_CREDENTIAL_VARS } from "../providers/claude.js";
import { agentEgress } from "./agent-egress.js";
import { egressControlled } from "./egress-door.js";
import { createRunEgress } from "./run-egress.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The network a proof of this box kind records under this deployment: "proxy" or "host". */
export function proofNetwork(env: Env, boxKind: BoxKind): "proxy" | "host" {
  return egressControlled({ mode: egressMode(env), boxKind }) ? "proxy" : "host";
}

/** Not a credential: the scripted model of the enforcement check takes any key. */
const SCRIPTED_KEY = "scripted-prove-not-a-key";

export async function proveDoors(o: {
  hostEnv: Env;
  boxKind: BoxKind;
  boxUser: BoxUser;
  installRoot: string;
  config: ResolvedConfig | null;
  loginFile: boolean;
}): Promise<ProveDoors> {
  const egress = createRunEgress(o);
  const credentials: Record<string, string> = {};
  for (const name of CLAUDE_CREDENTIAL_VARS) {
    const v = o.hostEnv[name];
    if (v !== undefined) credentials[name] = v;
  }
  const agent = agentEgress({
    provider: "claude",
    credentials,
    loginFile: o.loginFile,
    controlled: egress.controlled,
  });
  const rules = await egress.phaseRules();
  return {
    mode: egress.controlled ? "proxy" : "host",
    open(phase, gatewayTo) {
      if (phase !== "agent") {
        return egress.door({ phase, rules: phase === "setup" ? rules.setup : rules.controls });
      }
      if (gatewayTo) {
        return egress.door({
          phase,
          role: "prove",
          rules: [],
          gateway: { upstream: gatewayTo, headers: { "x-api-key": SCRIPTED_KEY } },
        });
      }
      return egress.door({
        phase,
        rules: agent.rules,
        ...(agent.gateway ? { gateway: agent.gateway } : {}),
      });
    },
    agentEnv: (gatewayTo) => (gatewayTo ? gatewayEnv("api-key") : agent.boxEnv),
    phaseEnv: (phase) => (phase === "setup" ? rules.setupEnv : {}),
  };
}
