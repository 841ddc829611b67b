import type { Origin, ResolvedConfig } from "./resolved-config.js";
import { suggest } from "./schema-issues.js";

export interface Explanation {
  /** The key explained (after trimming a field like ".run" off a control). */
  key: string;
  value: unknown;
  /** The layer the effective value came from; "additive" for unions. */
  origin: Origin | "additive";
  /** Every layer that set the key, lowest first; the last one wins unless additive. */
  layers: Array<{ origin: Origin; value: unknown }>;
  note?: string;
}

export class ExplainError extends Error {
  override readonly name = "ExplainError";
}

const ADDITIVE = new Set([
  "protected_paths",
  "trusted",
  "builder.allow",
  "network.setup",
  "network.controls",
  "network.registries",
]);
const ADDITIVE_NOTES: Record<string, string> = {
  protected_paths:
    "a union: the deployment's entries and the repository's additions; a repository cannot remove one",
  trusted:
    "a union: the deployment's entries and the repository's additions; a repository cannot remove one",
  "builder.allow":
    "added to the builder's shipped allow list for a run: the preset's and the controls' exact commands, then the repository's builder.allow; the settings' deny rules and the guard still win",
  "network.setup":
    "a union: the deployment's hosts and the repository's additions, reached by the setup phase besides the package registries (network.registries); a repository cannot remove one",
  "network.controls":
    "a union: the deployment's hosts and the repository's additions, reached by the controls and scripts/verify.sh; nothing else by default, and a repository cannot remove one",
  "network.registries":
    "the package managers whose registries the setup phase reaches — the host's configured registries where it sets them, else the public ones; from the detected stacks and the setup commands",
};

/** `forge config explain <key>`: the effective value of a key and where it came from. */
export function explain(config: ResolvedConfig, key: string): Explanation {
  const wanted = key.trim().replace(/^\.+|\.+$/g, "");
  if (ADDITIVE.has(wanted)) {
    const value = additiveValue(config, wanted);
    return {
      key: wanted,
      value,
      origin: "additive",
      layers: config.trace[wanted] ?? [],
      note: ADDITIVE_NOTES[wanted] ?? "",
    };
  }
  // "validate.test.run" → "validate.test"; "provider.models" → its three tiers.
  let probe = wanted;
  let field: string | undefined;
  while (probe !== "" && !config.trace[probe]) {
    const cut = probe.lastIndexOf(".");
    if (cut < 0) {
      probe = "";
      break;
    }
    field = probe.slice(cut + 1);
    probe = probe.slice(0, cut);
  }
  const layers = probe ? config.trace[probe] : undefined;
  if (!layers || layers.length === 0) {
    const inherited = componentFallback(config, wanted);
    if (inherited) return inherited;
    const known = Object.keys(config.trace);
    const close = suggest(wanted, known);
    throw new ExplainError(
      `no key "${key}" in the resolved config${close ? ` — did you mean "${close}"?` : ""}; keys: ${known.join(", ")}`,
    );
  }
  const last = layers[layers.length - 1] as { origin: Origin; value: unknown };
  let value = last.value;
  let origin = last.origin;
  const componentKey = /^components\.(.+)\.validate\.([^.]+)$/.exec(probe);
  const control = probe.startsWith("validate.")
    ? config.controls[probe.slice("validate.".length)]
    : componentKey
      ? config.components[componentKey[1] as string]?.controls[componentKey[2] as string]
      : undefined;
  if (control) {
    value = { run: control.run, advisory: control.advisory };
    origin = control.origin;
  }
  if (field !== undefined && value && typeof value === "object" && field in value) {
    value = (value as Record<string, unknown>)[field];
  }
  const note =
    origin === "floor"
      ? "added by the quality floor because no layer declares it"
      : control && layers.length > 1
        ? "a control is taken whole from the highest layer that declares it (never merged)"
        : undefined;
  return {
    key: field ? `${probe}.${field}` : probe,
    value,
    origin,
    layers,
    ...(note ? { note } : {}),
  };
}

function additiveValue(config: ResolvedConfig, key: string): unknown {
  switch (key) {
    case "protected_paths":
      return config.protectedPaths;
    case "trusted":
      return config.trusted;
    case "network.setup":
      return config.network.setup;
    case "network.controls":
      return config.network.controls;
    case "network.registries":
      return config.network.registries;
    default:
      return config.builder.allow;
  }
}

/** `components.web.validate.test` not declared by the component → the root control applies. */
function componentFallback(config: ResolvedConfig, key: string): Explanation | undefined {
  const m = /^components\.(.+)\.validate\.([a-z][a-z0-9_-]*)$/.exec(key);
  if (!m || !config.components[m[1] as string]) return undefined;
  const root = config.controls[m[2] as string];
  if (!root) return undefined;
  return {
    key,
    value: { run: root.run, advisory: root.advisory },
    origin: root.origin,
    layers: config.trace[`validate.${root.name}`] ?? [],
    note: `component ${m[1]} declares no ${root.name}; the repository's control applies`,
  };
}

export function formatExplanation(e: Explanation): string {
  const lines = [`${e.key} = ${JSON.stringify(e.value)}`, `  from: ${e.origin}`];
  if (e.layers.length > 0) {
    lines.push(
      e.origin === "additive"
        ? "  layers (lowest first; every entry is kept):"
        : "  layers (lowest first; the last one wins):",
    );
    for (const layer of e.layers)
      lines.push(`    ${layer.origin.padEnd(18)} ${JSON.stringify(layer.value)}`);
  }
  if (e.note) lines.push(`  note: ${e.note}`);
  return lines.join("\n");
}
