/**
 * Which environment variables of a deployment hold secrets. The rule:
 * - the credentials forgechain and its tools use, by name (SECRET_NAMES);
 * - any variable whose name (case-insensitively) ends in _TOKEN, _SECRET, _KEY or _PASSWORD —
 *   the common convention, so a deployment's own secrets are covered without a list here;
 * - the password of DATABASE_URL and of any other *_URL of the form scheme://user:pass@host.
 * A value is secret by its variable's name alone: a non-secret value under such a name (rare)
 * is only reported if it appears in a scanned text, which fails closed.
 */
const SECRET_NAMES = new Set([
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "GIT_PAT",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "PRIVATE_KEY",
  "WEBHOOK_SECRET",
  "FORGE_GATE_SECRET",
  "GITHUB_CLIENT_SECRET",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "NPM_TOKEN",
]);
const SECRET_SUFFIX = /_(?:TOKEN|SECRET|KEY|PASSWORD)$/;
const URL_SUFFIX = /(?:^|_)URL$/;

export function knownSecretsFromEnv(env: Record<string, string | undefined>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    const upper = name.toUpperCase();
    if (SECRET_NAMES.has(upper) || SECRET_SUFFIX.test(upper)) values.push(value);
    else if (URL_SUFFIX.test(upper)) {
      values.push(...urlPassword(value));
    }
  }
  return values;
}

/** The password as written in the URL and, when that is percent-encoded, decoded. */
function urlPassword(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return [];
  }
  if (!url.password) return [];
  try {
    const decoded = decodeURIComponent(url.password);
    return decoded === url.password ? [decoded] : [url.password, decoded];
  } catch {
    return [url.password];
  }
}

const SECRET_KEY = /token|secret|password|key$/i;

/**
 * The values under secret-named keys (…token, …secret, …password, …key) anywhere in a JSON
 * credentials file — e.g. the `claude` login's OAuth access and refresh tokens. Not JSON: [].
 */
export function knownSecretsFromJson(json: string): string[] {
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch {
    return [];
  }
  const values: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 16 || node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === "string" && SECRET_KEY.test(key)) values.push(value);
      else walk(value, depth + 1);
    }
  };
  walk(root, 0);
  return values;
}
