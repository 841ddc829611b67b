import { formatBytes } from "./byte-size.js";
import { controlsToRun, setupValidateDigest } from "./controls.js";
import type { ConfigIssue } from "./issues.js";
import { formatIssue } from "./issues.js";
import type { FrozenRegistry } from "./registry.js";
import type { ResolvedConfig } from "./resolved-config.js";

export interface ConfigReportSource {
  file: string;
  from: "git" | "worktree";
  ref: string | null;
  found: boolean;
  note: string;
}

/** The machine-readable view `forge config check --json` prints (and the run output can embed). */
export function resolvedConfigJson(
  config: ResolvedConfig,
  registry: FrozenRegistry,
  source: ConfigReportSource,
  warnings: readonly ConfigIssue[],
): Record<string, unknown> {
  return {
    ok: true,
    source,
    stacks: config.stacks,
    preset: config.preset,
    labels: config.labels,
    chains: config.chains,
    setup: config.setup,
    controls: controlsToRun(config).map(({ id, name, run, advisory, origin, cwd }) => ({
      id,
      name,
      run,
      advisory,
      origin,
      cwd,
    })),
    components: config.components,
    protected_paths: config.protectedPaths,
    handbook: config.handbook,
    provider: config.provider,
    budgets: config.budgets,
    review: config.review,
    trusted: config.trusted,
    builder: config.builder,
    network: config.network,
    roles: registry,
    setup_validate_digest: setupValidateDigest(config),
    warnings: warnings.map((w) => ({ ...w, text: formatIssue(w) })),
  };
}

/** The human view of the same. */
export function formatResolvedConfig(
  config: ResolvedConfig,
  registry: FrozenRegistry,
  source: ConfigReportSource,
  warnings: readonly ConfigIssue[],
): string {
  const lines: string[] = [];
  lines.push(`${source.file}: ${source.found ? "" : "not found; "}${source.note}`);
  lines.push(
    `stack: ${config.stacks.join(", ") || "none detected"}${config.preset ? ` (preset ${config.preset})` : ""}`,
  );
  lines.push("setup:");
  if (config.setup.value.length === 0) lines.push(`  (none)  [${config.setup.origin}]`);
  for (const command of config.setup.value) lines.push(`  ${command}  [${config.setup.origin}]`);
  for (const c of Object.values(config.components)) {
    for (const command of c.setup?.value ?? [])
      lines.push(`  (in ${c.dir}) ${command}  [${c.setup?.origin}]`);
  }
  lines.push("controls:");
  const controls = controlsToRun(config);
  const width = Math.max(...controls.map((c) => c.id.length), 4);
  for (const c of controls) {
    const kind = c.advisory ? "advisory ⚠" : "blocking";
    lines.push(`  ${c.id.padEnd(width)}  ${kind.padEnd(10)}  ${c.run}  [${c.origin}]`);
  }
  lines.push("builder may also run (besides its shipped list):");
  if (config.builder.allow.length === 0) lines.push("  (nothing more)");
  for (const c of config.builder.allow) lines.push(`  ${c.pattern}  [${c.origin}, ${c.from}]`);
  lines.push(...networkLines(config));
  lines.push("protected paths:");
  for (const p of config.protectedPaths) lines.push(`  ${p.pattern}  [${p.origin}]`);
  const models = Object.entries(config.provider.models)
    .map(([tier, m]) => `${tier} ${m ? m.value : "(CLI default)"}`)
    .join(", ");
  lines.push(
    `provider: ${config.provider.name.value} [${config.provider.name.origin}] — ${models}`,
  );
  lines.push(
    `labels: change "${config.labels.change.value}", review "${config.labels.review.value}"; chains: change ${config.chains.change.enabled.value ? "on" : "off"}, review ${config.chains.review.enabled.value ? "on" : "off"}${config.chains.review.events.value.length ? ` (also on ${config.chains.review.events.value.join(", ")})` : ""}`,
  );
  lines.push(
    `handbook: ${config.handbook ? `${config.handbook.value.repo}@${config.handbook.value.ref}` : "none (roles fall back to .claude/agents/<role>.md)"}`,
  );
  const b = config.budgets;
  lines.push(
    `budgets: request ${b.requestBudget.value}${b.maxTurns ? `, max turns ${b.maxTurns.value}` : ""}${b.maxBudgetUsd ? `, max USD ${b.maxBudgetUsd.value}` : ""}`,
  );
  const diff = config.review.maxDiffBytes;
  lines.push(
    `review: diffs up to ${formatBytes(diff.value)} (${diff.value} bytes) are shown whole, larger ones fail  [${diff.origin}]`,
  );
  if (config.trusted.length > 0)
    lines.push(`trusted: ${config.trusted.map((t) => t.login).join(", ")}`);
  lines.push(
    `roles: ${Object.keys(registry.roles).join(", ")} (registry revision ${registry.revision}, digest ${registry.digest.slice(0, 12)}…)`,
  );
  if (warnings.length > 0) {
    lines.push("warnings:");
    for (const w of warnings) lines.push(`  ${formatIssue(w)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** What the boxes may reach through the egress proxy, by phase, each entry with its layer. */
function networkLines(config: ResolvedConfig): string[] {
  const n = config.network;
  const registries = n.registries.map((r) => `${r.manager} [${r.origin}]`).join(", ");
  const hosts = (list: typeof n.setup) => list.map((h) => `  ${h.entry}  [${h.origin}]`);
  return [
    "network (through the egress proxy; the agent steps reach their model endpoint only):",
    `  setup: the package registries of ${registries || "no package manager"} (the host's, else the public ones)`,
    ...hosts(n.setup).map((l) => `  ${l}`),
    `  controls and verify: ${n.controls.length === 0 ? "nothing" : ""}`.trimEnd(),
    ...hosts(n.controls).map((l) => `  ${l}`),
  ];
}
