/**
 * R4.6: the hosts each phase's boxes may reach through the egress proxy, decided by the runner
 * from the resolved config and the host's registries — never by an agent.
 *
 * - agent steps: nothing here; the runner adds the harness endpoint (the host and port of
 *   ANTHROPIC_BASE_URL, or the provider's API hosts) and a repository cannot add to it;
 * - setup: the registries of the package managers the stacks and the setup commands use
 *   (the host's configured ones, else the public ones), then the deployment's and the
 *   repository's `network.setup`;
 * - controls (and scripts/verify.sh, which runs beside them): only the deployment's and the
 *   repository's `network.controls` — nothing by default, as the controls run the builder's
 *   code.
 */
import { type HostRegistries, registryEntries, uniqueEntries } from "./egress-registries.js";
import type { ResolvedConfig } from "./resolved-config.js";

export interface EgressAllowlists {
  agent: string[];
  setup: string[];
  controls: string[];
}

/** Each phase's allowlist as canonical host entries (egress-entry.ts), registries first. */
export function egressAllowlists(config: ResolvedConfig, host: HostRegistries): EgressAllowlists {
  const registries = config.network.registries.flatMap((r) => registryEntries(r.manager, host));
  return {
    agent: [],
    setup: uniqueEntries([...registries, ...config.network.setup.map((h) => h.entry)]),
    controls: uniqueEntries(config.network.controls.map((h) => h.entry)),
  };
}
