/**
 * What the deployment says about the network, from its environment (R4.6). Only the
 * deployment: a repository has no way to reach these — forge.yml can add hosts for its setup
 * and controls, never switch the proxy off.
 *
 *   FORGE_EGRESS=host           every box shares the host network (for a deployment that
 *                               cannot run the proxy); every run output and sticky comment
 *                               names it. Unset (or "proxy"): the egress proxy.
 *   FORGE_EGRESS_SETUP=a,b      hosts every repository's setup phase may reach
 *   FORGE_EGRESS_CONTROLS=a,b   hosts every repository's controls and verify may reach
 */
import type { DeploymentConfig } from "./deployment.js";
import { formatHostEntry, parseHostEntry } from "./egress-entry.js";

export type EgressMode = "proxy" | "host";

/** A deployment variable that cannot be read; the message names it, its value and the fix. */
export class EgressConfigError extends Error {
  override readonly name = "EgressConfigError";
}

type Env = Readonly<Record<string, string | undefined>>;

export function egressMode(env: Env): EgressMode {
  const value = env.FORGE_EGRESS;
  if (value === undefined || value === "" || value === "proxy") return "proxy";
  if (value === "host") return "host";
  throw new EgressConfigError(
    `FORGE_EGRESS=${JSON.stringify(value)} is not a network mode — unset it (every box goes through the egress proxy), or set FORGE_EGRESS=host to give every box the host network`,
  );
}

/** FORGE_EGRESS_SETUP and FORGE_EGRESS_CONTROLS as canonical host lists. */
export function deploymentEgress(env: Env): { setup: string[]; controls: string[] } {
  return {
    setup: hostListVariable(env, "FORGE_EGRESS_SETUP"),
    controls: hostListVariable(env, "FORGE_EGRESS_CONTROLS"),
  };
}

/** The deployment layer with its network lists added from the environment. */
export function withDeploymentEgress(deployment: DeploymentConfig, env: Env): DeploymentConfig {
  const extra = deploymentEgress(env);
  const merge = (a: readonly string[] | undefined, b: readonly string[]) => [
    ...new Set([...(a ?? []), ...b]),
  ];
  return {
    ...deployment,
    network: {
      setup: merge(deployment.network?.setup, extra.setup),
      controls: merge(deployment.network?.controls, extra.controls),
    },
  };
}

function hostListVariable(env: Env, name: string): string[] {
  const out: string[] = [];
  for (const raw of (env[name] ?? "").split(",")) {
    const text = raw.trim();
    if (text === "") continue;
    const parsed = parseHostEntry(text);
    if (!parsed.ok) throw new EgressConfigError(`${name}: ${parsed.message} — ${parsed.fix}`);
    const entry = formatHostEntry(parsed.entry);
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
