/**
 * The `network:` part of the cascade (R4.6): unions, never overrides. The deployment's hosts
 * come first, the repository adds its own; no field and no entry can take one away (the
 * schema refuses `!host` and keys such as `deny:`), so what a deployment allows is allowed in
 * every repository, and a repository can only open more for its own setup and controls.
 * The agent steps have no list here at all: they reach their model endpoint only.
 */
import type { DeploymentConfig } from "./deployment.js";
import { canonicalHostEntry } from "./egress-entry.js";
import { managersOfCommand, type PackageManager, STACK_MANAGER } from "./egress-registries.js";
import type { ForgeConfig, Stack } from "./forge-config-schema.js";
import type { Origin, ResolvedNetwork, Sourced, SourcedHost } from "./resolved-config.js";

export interface NetworkInput {
  deployment: DeploymentConfig;
  repo: ForgeConfig;
  /** Every stack detected at the root (each one's manager may be needed by setup). */
  stacks: readonly Stack[];
  /** The resolved root setup and each component's own. */
  setups: ReadonlyArray<Sourced<string[]> | null>;
  note: (key: string, origin: Origin, value: unknown) => void;
}

export function resolveNetwork(input: NetworkInput): ResolvedNetwork {
  const { deployment, repo, note } = input;
  const registries: ResolvedNetwork["registries"] = [];
  const addManager = (manager: PackageManager, origin: Origin) => {
    if (!registries.some((r) => r.manager === manager)) registries.push({ manager, origin });
  };
  for (const stack of input.stacks) addManager(STACK_MANAGER[stack], `preset:${stack}`);
  for (const setup of input.setups) {
    for (const line of setup?.value ?? []) {
      for (const manager of managersOfCommand(line)) addManager(manager, setup?.origin ?? "repo");
    }
  }
  for (const origin of new Set(registries.map((r) => r.origin))) {
    note(
      "network.registries",
      origin,
      registries.filter((r) => r.origin === origin).map((r) => r.manager),
    );
  }

  const union = (key: "setup" | "controls"): SourcedHost[] => {
    const out: SourcedHost[] = [];
    const add = (origin: Origin, list: readonly string[] | undefined) => {
      if (!list) return;
      note(`network.${key}`, origin, list);
      for (const text of list) {
        // The repository's entries passed the schema; the deployment's passed egress-env.ts
        // or were written by the operator: an invalid one is a deployment bug and throws.
        const entry = canonicalHostEntry(text);
        if (!out.some((h) => h.entry === entry)) out.push({ entry, origin });
      }
    };
    add("deployment", deployment.network?.[key]);
    add("repo", repo.network?.[key]);
    return out;
  };
  return { registries, setup: union("setup"), controls: union("controls") };
}
