import { builderAllowIssues } from "./builder-commands.js";
import { BUILTIN_CONTROLS } from "./builtin-controls.js";
import { formatBytes } from "./byte-size.js";
import { parseHostEntry } from "./egress-entry.js";
import {
  DIFF_LIMIT,
  FORGE_CONFIG_PATH,
  type ForgeConfig,
  ForgeConfigSchema,
} from "./forge-config-schema.js";
import { ConfigError } from "./issues.js";
import { suggest, translateZodIssues, type UnknownKeyRule } from "./schema-issues.js";
import { parseYamlSource, type YamlSource } from "./yaml-source.js";

/** A validated `.github/forge.yml` that can still point at its own lines. */
export interface ParsedForgeConfig {
  file: string;
  config: ForgeConfig;
  locate: YamlSource["locate"];
}

// R8.4: a repository has no field to remove a protected path. A key that tries gets the rule
// in the error, not a spelling suggestion pointing back at protected_paths.
const UNPROTECT: UnknownKeyRule = {
  test: /unprotect|protect\w*_(remove|exclude|ignore|except|delete|off|disable|negate)|(remove|exclude|ignore|except|delete|allow)\w*_?protect|allow_?paths/i,
  message: "protected paths are additive: a repository can add patterns, never remove one",
  fix: "delete this key; to protect more paths, list them under protected_paths",
};
const DISABLE_FLOOR: UnknownKeyRule = {
  test: /^(floor|skip|no)_|_(skip|disable|remove)$/i,
  message: "the quality floor (test and security controls) cannot be switched off",
  fix: "delete this key; declare the control under validate: to change what it runs",
};

// R4.6: the agent steps reach their model endpoint only, and the lists are additive. A key that
// would open the agent's network or remove a host gets the rule, not a spelling suggestion.
const NETWORK_AGENT: UnknownKeyRule = {
  at: "network",
  test: /^(agent|agents|model|harness|architect|builder|reviewer|security|docs|steps?|roles?)$/i,
  message:
    "the agent steps reach their model endpoint only; a repository cannot open more hosts for them",
  fix: "delete this key; list hosts for the setup phase under network.setup, for the controls under network.controls",
};
const NETWORK_REMOVE: UnknownKeyRule = {
  at: "network",
  test: /deny|block|remove|exclude|except|disable|drop|ignore|off|none|only|replace|override/i,
  message:
    "network lists are additive: a repository adds hosts for setup and the controls, and can never remove the deployment's or the package registries",
  fix: "delete this key; list the hosts to add under network.setup or network.controls",
};

/** Fixes that know what the value at a path is for. */
function fixFor(path: string, value: unknown): string | undefined {
  if (path === "handbook.ref") {
    return "pin the full commit sha (git rev-parse <branch> in the handbook repository)";
  }
  if (path === "handbook.repo") return 'write it as owner/name, e.g. "acme/handbook"';
  if (path.endsWith(".run") && typeof value === "string" && value.startsWith("forge:")) {
    const close = suggest(value, Object.keys(BUILTIN_CONTROLS));
    return close ? `did you mean "${close}"?` : "remove the forge: prefix to run a shell command";
  }
  if (path.startsWith("provider.models.")) {
    return "write a model id such as sonnet or gpt-5-codex (no spaces, not starting with -)";
  }
  if (/^network\.(setup|controls)\[\d+\]$/.test(path) && typeof value === "string") {
    const parsed = parseHostEntry(value);
    return parsed.ok ? undefined : parsed.fix;
  }
  if (path.startsWith("trusted[")) return "write the GitHub login without @ (letters, digits, -)";
  if (path.startsWith("components.")) {
    return "use a folder path inside the repository, without .., ./ or a leading /";
  }
  if (path.startsWith("roles.skills.")) return "skill names are slugs: a-z, 0-9 and -";
  if (path === "review.max_diff_bytes") {
    return `use a whole number of bytes from ${DIFF_LIMIT.min} (${formatBytes(DIFF_LIMIT.min)}) to ${DIFF_LIMIT.max} (${formatBytes(DIFF_LIMIT.max)}), e.g. max_diff_bytes: 524288 for 512 KiB`;
  }
  return undefined;
}

/**
 * Parses and validates the text of `.github/forge.yml`. An empty file is an empty config.
 * Throws ConfigError listing every problem, each with file:line:column, expectation and fix.
 */
export function parseForgeConfig(
  text: string,
  file: string = FORGE_CONFIG_PATH,
): ParsedForgeConfig {
  const source = parseYamlSource(text, file);
  if (source.data === null || typeof source.data !== "object" || Array.isArray(source.data)) {
    throw new ConfigError([
      {
        severity: "error",
        code: "not_a_map",
        file,
        path: "",
        ...(source.locate([]) ?? { line: 1, column: 1 }),
        message: "the file must be a block of keys (labels:, setup:, validate:, …)",
        expected: "a YAML mapping at the top level",
        fix: "start with a key, e.g. `validate:` on the first line",
      },
    ]);
  }
  const result = ForgeConfigSchema.safeParse(source.data);
  if (!result.success) {
    throw new ConfigError(
      translateZodIssues(ForgeConfigSchema, result.error, source, {
        unknownKeyRules: [NETWORK_AGENT, NETWORK_REMOVE, UNPROTECT, DISABLE_FLOOR],
        fixFor,
      }),
    );
  }
  // What zod cannot say: a builder.allow entry that would open what the builder is denied.
  const builder = builderAllowIssues(result.data.builder?.allow, file, (path) =>
    source.locate(path),
  );
  if (builder.length > 0) throw new ConfigError(builder);
  return { file, config: result.data, locate: source.locate };
}
