import type { lintSource } from "@secretlint/core";
import { rules } from "@secretlint/secretlint-rule-preset-recommend";

/**
 * secretlint's recommended preset, unpacked into its rules so we can leave one out:
 * `@secretlint/secretlint-rule-filter-comments` honours `secretlint-disable` comments in the
 * scanned text. Our text is written by agents and diff authors — the very parties we scan —
 * so a `// secretlint-disable` line in a diff would hide the secret under it (measured with
 * secretlint 12.0.0). Every other rule of the preset runs with its defaults, except that the
 * AWS rule also reports access key IDs (`enableIDScanRule`), which it skips by default.
 */
const FILTER_COMMENTS = "@secretlint/secretlint-rule-filter-comments";
const AWS = "@secretlint/secretlint-rule-aws";

// @secretlint/types is not our direct dependency; take the config type from lintSource.
type SecretLintCoreConfig = Parameters<typeof lintSource>[0]["options"]["config"];

export const RULE_ID_PREFIX = "@secretlint/secretlint-rule-";

export const SECRETLINT_CONFIG: SecretLintCoreConfig = {
  rules: rules
    .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
    .map((rule) => ({
      id: rule.meta.id,
      rule,
      options: rule.meta.id === AWS ? { enableIDScanRule: true } : {},
    })),
};
