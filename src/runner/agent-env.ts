// R2.5: the agent never holds the push token or cloud keys. The agent's environment is built
// from an allowlist, so a variable we never heard of (a new cloud SDK's key) is dropped too;
// the provider adds only its own credential.
export const PASSTHROUGH = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM"] as const;

/** Names that must never reach an agent, checked again after the env is built. */
const FORBIDDEN = [
  /^GIT_PAT$/,
  /^GITHUB_TOKEN$/,
  /^GH_TOKEN$/,
  /^GH_ENTERPRISE_TOKEN$/,
  /^GITHUB_APP_/,
  /^PRIVATE_KEY/,
  /^WEBHOOK_SECRET$/,
  /^FORGE_GATE_SECRET$/,
  /^AWS_/,
  /^AZURE_/,
  /^GOOGLE_APPLICATION_CREDENTIALS$/,
  /^GCP_/,
  /^CLOUDSDK_/,
  /^NPM_TOKEN$/,
  /^DOCKER_/,
  /^KUBECONFIG$/,
  /^SSH_AUTH_SOCK$/,
];

export class EnvLeakError extends Error {
  override readonly name = "EnvLeakError";
}

export function buildAgentEnv(opts: {
  host: Record<string, string | undefined>;
  home: string;
  providerCredentials: Record<string, string>;
  extra: Record<string, string>;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSTHROUGH) {
    const v = opts.host[name];
    if (v !== undefined) env[name] = v;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  env.HOME = opts.home;
  env.USER = "forge";
  // Claude Code: no auto-update, no telemetry or error reporting from inside a box.
  env.DISABLE_AUTOUPDATER = "1";
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1";
  env.DISABLE_TELEMETRY = "1";
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  // A builder can write refs/replace/ in the workspace; with this, no git in any box (the
  // reviewer's `git show`, a control) shows a replacement in place of the committed object.
  env.GIT_NO_REPLACE_OBJECTS = "1";
  Object.assign(env, opts.providerCredentials, opts.extra);
  for (const name of Object.keys(env)) {
    if (FORBIDDEN.some((re) => re.test(name))) {
      throw new EnvLeakError(`refusing to start an agent with ${name} in its environment`);
    }
  }
  return env;
}
