import { resolveBuilderCommands } from "./builder-commands.js";
import { DEFAULT_DEPLOYMENT, type DeploymentConfig } from "./deployment.js";
import { resolveNetwork } from "./egress-cascade.js";
import { applyFloor } from "./floor.js";
import type { ParsedForgeConfig } from "./forge-config-parse.js";
import {
  FORGE_CONFIG_PATH,
  type ForgeConfig,
  type Stack,
  TIERS,
  type Tier,
} from "./forge-config-schema.js";
import { ConfigError, type ConfigIssue, type Position } from "./issues.js";
import { detectStacks, stackPreset } from "./presets.js";
import { isNegation } from "./protected-paths.js";
import type {
  Origin,
  ResolvedComponent,
  ResolvedConfig,
  ResolvedControl,
  Sourced,
} from "./resolved-config.js";

export interface ResolveInput {
  /** The deployment layer; DEFAULT_DEPLOYMENT when absent. */
  deployment?: DeploymentConfig;
  /** The parsed `.github/forge.yml` of the default branch; null/absent when the repo has none. */
  repo?:
    | ParsedForgeConfig
    | { file?: string; config: ForgeConfig; locate?: ParsedForgeConfig["locate"] }
    | null;
  /** Names of the entries at the repository root, for stack detection. */
  rootFiles?: readonly string[];
  /** The text of the root files a preset reads (PRESET_TEXT_FILES), when read. */
  rootTexts?: Readonly<Record<string, string>>;
  /** Use these stacks instead of detecting them from rootFiles. */
  stacks?: readonly Stack[];
}

type Trace = ResolvedConfig["trace"];

/**
 * THE cascade (R8.1): deployment defaults → stack preset → repository block → component
 * blocks, then the floor (R8.2/R8.3). Pure: no I/O, same input → same output. Every value
 * carries its origin. Throws ConfigError when the floor refuses (no `test` control).
 *
 * Layering rules: a scalar or a control is taken whole from the highest layer that sets it
 * (a control is never merged field by field — "kept exactly as written"); protected paths and
 * trusted logins and the network's hosts are unions (a repository can add, never remove).
 */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const deployment = input.deployment ?? DEFAULT_DEPLOYMENT;
  const repo = input.repo?.config ?? {};
  const file = input.repo?.file ?? FORGE_CONFIG_PATH;
  const locate = input.repo?.locate;
  const at = (path: PropertyKey[], part?: "key" | "value"): Position =>
    locate?.(path, part) ?? { line: 1, column: 1 };
  const notices: ConfigIssue[] = [];
  const trace: Trace = {};
  const note = (key: string, origin: Origin, value: unknown) => {
    if (value === undefined) return;
    const list = trace[key] ?? [];
    list.push({ origin, value });
    trace[key] = list;
  };
  const top = <T>(key: string): Sourced<T> | undefined => {
    const list = trace[key];
    const last = list?.[list.length - 1];
    return last ? { value: last.value as T, origin: last.origin } : undefined;
  };

  // Layer 1: deployment.
  const D: Origin = "deployment";
  note("labels.change", D, deployment.labels.change);
  note("labels.review", D, deployment.labels.review);
  note("chains.change.enabled", D, deployment.chains.change.enabled);
  note("chains.review.enabled", D, deployment.chains.review.enabled);
  note("chains.review.events", D, deployment.chains.review.events);
  note("setup", D, deployment.setup);
  for (const [name, spec] of Object.entries(deployment.validate)) note(`validate.${name}`, D, spec);
  note("handbook", D, deployment.handbook);
  note("provider.name", D, deployment.provider.name);
  note("budgets.max_turns", D, deployment.budgets.max_turns);
  note("budgets.max_budget_usd", D, deployment.budgets.max_budget_usd);
  note("budgets.request_budget", D, deployment.budgets.request_budget);
  note("review.max_diff_bytes", D, deployment.review.max_diff_bytes);

  // Layer 2: the stack preset (the first detected stack; the others are named).
  const stacks = [...(input.stacks ?? detectStacks(input.rootFiles ?? []))];
  const presetStack = stacks[0] ?? null;
  const preset = presetStack
    ? stackPreset(presetStack, input.rootFiles ?? [], input.rootTexts ?? {})
    : null;
  if (presetStack && preset) {
    const P: Origin = `preset:${presetStack}`;
    note("setup", P, preset.setup);
    for (const [name, spec] of Object.entries(preset.controls)) note(`validate.${name}`, P, spec);
    if (stacks.length > 1) {
      notices.push({
        severity: "warning",
        code: "several_stacks",
        file,
        path: "",
        line: 1,
        column: 1,
        message: `several stacks found at the root (${stacks.join(", ")}); only the ${presetStack} preset is applied`,
        fix: "declare setup: and validate.test in .github/forge.yml to cover the others",
      });
    }
  }

  // Layer 3: the repository block.
  const R: Origin = "repo";
  note("labels.change", R, repo.labels?.change);
  note("labels.review", R, repo.labels?.review);
  note("chains.change.enabled", R, repo.chains?.change?.enabled);
  note("chains.review.enabled", R, repo.chains?.review?.enabled);
  note("chains.review.events", R, repo.chains?.review?.events);
  note("setup", R, repo.setup);
  for (const [name, spec] of Object.entries(repo.validate ?? {})) note(`validate.${name}`, R, spec);
  note("handbook", R, repo.handbook);
  note("provider.name", R, repo.provider?.name);
  note("budgets.max_turns", R, repo.budgets?.max_turns);
  note("budgets.max_budget_usd", R, repo.budgets?.max_budget_usd);
  note("budgets.request_budget", R, repo.budgets?.request_budget);
  note("review.max_diff_bytes", R, repo.review?.max_diff_bytes);

  // Provider models: the tier map of the chosen provider, then the repository's tiers.
  const providerName = top<ResolvedConfig["provider"]["name"]["value"]>("provider.name");
  if (!providerName) throw new Error("deployment has no provider");
  for (const tier of TIERS) {
    note(`provider.models.${tier}`, D, deployment.provider.models[providerName.value]?.[tier]);
    note(`provider.models.${tier}`, R, repo.provider?.models?.[tier]);
  }

  // Root controls, then the floor.
  const controls: Record<string, ResolvedControl> = {};
  for (const key of Object.keys(trace).filter((k) => k.startsWith("validate."))) {
    const picked = top<{ run: string; advisory?: boolean }>(key);
    if (!picked) continue;
    const name = key.slice("validate.".length);
    controls[name] = {
      name,
      run: picked.value.run,
      advisory: picked.value.advisory === true,
      origin: picked.origin,
      cwd: ".",
    };
  }
  const floor = applyFloor(controls, {
    file,
    ...(input.repo
      ? { position: repo.validate ? at(["validate"], "key") : { line: 1, column: 1 } }
      : {}),
    exists: Boolean(input.repo),
  });
  for (const name of floor.added)
    note(`validate.${name}`, "floor", {
      run: floor.controls[name]?.run,
      advisory: floor.controls[name]?.advisory,
    });

  // Layer 4: component blocks (each namespaced by its folder).
  const components: Record<string, ResolvedComponent> = {};
  for (const [dir, block] of Object.entries(repo.components ?? {})) {
    const C: Origin = `component:${dir}`;
    note(`components.${dir}.setup`, C, block.setup);
    const own: Record<string, ResolvedControl> = {};
    for (const [name, spec] of Object.entries(block.validate ?? {})) {
      note(`components.${dir}.validate.${name}`, C, spec);
      own[name] = { name, run: spec.run, advisory: spec.advisory === true, origin: C, cwd: dir };
    }
    components[dir] = {
      dir,
      setup: block.setup ? { value: block.setup, origin: C } : null,
      controls: own,
    };
  }

  // Additive lists.
  const protectedPaths: ResolvedConfig["protectedPaths"] = [];
  const addPattern = (pattern: string, origin: Origin, index: number) => {
    if (isNegation(pattern)) {
      // R8.4: "!x" would un-protect x. No field can remove a protected path: ignored, reported.
      notices.push({
        severity: "warning",
        code: "unprotect_ignored",
        file,
        path: `protected_paths[${index}]`,
        ...(origin === "repo" ? at(["protected_paths", index]) : { line: 1, column: 1 }),
        message: `"${pattern}" would remove a protected path; protected paths are additive, so it has no effect`,
        fix: "delete this entry",
      });
      return;
    }
    if (!protectedPaths.some((p) => p.pattern === pattern))
      protectedPaths.push({ pattern, origin });
  };
  for (const [i, p] of deployment.protected_paths.entries()) addPattern(p, D, i);
  for (const [i, p] of (repo.protected_paths ?? []).entries()) addPattern(p, R, i);
  note("protected_paths", D, deployment.protected_paths);
  note("protected_paths", R, repo.protected_paths);

  const trusted: ResolvedConfig["trusted"] = [];
  for (const [origin, logins] of [
    [D, deployment.trusted],
    [R, repo.trusted ?? []],
  ] as const) {
    for (const login of logins) {
      if (!trusted.some((t) => t.login.toLowerCase() === login.toLowerCase()))
        trusted.push({ login, origin });
    }
  }
  note("trusted", D, deployment.trusted);
  note("trusted", R, repo.trusted);
  note("roles", R, repo.roles);

  if (floor.issues.length > 0) throw new ConfigError(floor.issues);

  // What the builder may run besides its shipped list (builder-commands.ts).
  const builder = resolveBuilderCommands({
    file,
    preset,
    controls: floor.controls,
    components,
    repoAllow: repo.builder?.allow ?? [],
    at,
  });
  notices.push(...builder.notices);
  for (const origin of new Set(builder.allow.map((c) => c.origin))) {
    note(
      "builder.allow",
      origin,
      builder.allow.filter((c) => c.origin === origin).map((c) => c.pattern),
    );
  }

  const need = <T>(key: string): Sourced<T> => {
    const v = top<T>(key);
    if (!v) throw new Error(`deployment has no value for ${key}`);
    return v;
  };
  const setup = need<string[]>("setup");
  // What the boxes may reach besides the model endpoint (egress-cascade.ts): unions only.
  const network = resolveNetwork({
    deployment,
    repo,
    stacks,
    setups: [setup, ...Object.values(components).map((c) => c.setup)],
    note,
  });
  const models = Object.fromEntries(
    TIERS.map((t) => [t, top<string>(`provider.models.${t}`) ?? null]),
  ) as Record<Tier, Sourced<string> | null>;
  return {
    stacks,
    preset: presetStack,
    labels: { change: need("labels.change"), review: need("labels.review") },
    chains: {
      change: { enabled: need("chains.change.enabled") },
      review: { enabled: need("chains.review.enabled"), events: need("chains.review.events") },
    },
    setup,
    controls: floor.controls,
    components,
    protectedPaths,
    handbook: top("handbook") ?? null,
    provider: { name: providerName, models },
    budgets: {
      maxTurns: top("budgets.max_turns") ?? null,
      maxBudgetUsd: top("budgets.max_budget_usd") ?? null,
      requestBudget: need("budgets.request_budget"),
    },
    review: { maxDiffBytes: need("review.max_diff_bytes") },
    trusted,
    builder: { allow: builder.allow },
    network,
    roleOverrides: repo.roles ?? {},
    trace,
    notices,
  };
}
