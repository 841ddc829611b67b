// The packaged Action's inputs and the runner's environment, read once and checked (R10.3): the
// names are action.yml's, GitHub passes each input as INPUT_<NAME> (upper-cased). A missing or
// malformed value stops the action with a message naming it and the fix; a secret is never part
// of any message.
import { isAbsolute } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/** A workflow that cannot run the action as written; the message names the input and the fix. */
export class ActionInputError extends Error {
  override readonly name = "ActionInputError";
}

export interface ActionInputs {
  githubToken: string;
  anthropicApiKey?: string;
  claudeCodeOauthToken?: string;
  triggerLabel: string;
  reviewLabel: string;
  /** The seal key's source; absent: commands that need a seal are refused with a reply. */
  gateSecret?: string;
  claudeVersion: string;
  /** Step mode: the App's public URL, where the job reads its step and reports it. */
  forgeUrl?: string;
}

export interface ActionRuntime {
  eventName: string;
  eventPath: string;
  /** owner/name. */
  repository: string;
  apiUrl: string;
  graphqlUrl: string;
  serverUrl: string;
  workspace: string;
  outputFile?: string;
  summaryFile?: string;
  runnerTemp: string;
  toolCache?: string;
  actor: string;
  runId: string;
  runAttempt: string;
}

const LABEL = /^[^\s,][^,]{0,49}$/;
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** INPUT_<NAME> as the runner sets it: spaces become underscores, letters upper-cased. */
export function inputName(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

function input(env: Env, name: string): string | undefined {
  const value = env[inputName(name)]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

export function readInputs(env: Env, pinnedClaude: string): ActionInputs {
  const githubToken = input(env, "github_token");
  if (!githubToken) {
    throw new ActionInputError(
      "github_token is empty: leave it out (the workflow's token is the default) or pass a token, e.g. from actions/create-github-app-token",
    );
  }
  const label = (name: string, fallback: string) => {
    const value = input(env, name) ?? fallback;
    if (!LABEL.test(value)) {
      throw new ActionInputError(
        `${name} ${JSON.stringify(value.slice(0, 60))} is not a label name: 1 to 50 characters, no comma, not starting with a space`,
      );
    }
    return value;
  };
  const claudeVersion = input(env, "claude_version") ?? pinnedClaude;
  if (!VERSION.test(claudeVersion)) {
    throw new ActionInputError(
      `claude_version ${JSON.stringify(claudeVersion.slice(0, 40))} is not a version such as ${pinnedClaude}`,
    );
  }
  const anthropicApiKey = input(env, "anthropic_api_key");
  const claudeCodeOauthToken = input(env, "claude_code_oauth_token");
  const gateSecret = input(env, "gate_secret");
  if (gateSecret !== undefined && gateSecret.length < 32) {
    throw new ActionInputError(
      "gate_secret is shorter than 32 characters: store a long random value as a repository secret (openssl rand -hex 32)",
    );
  }
  const forgeUrl = input(env, "forge_url");
  if (forgeUrl !== undefined && !/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/.test(forgeUrl)) {
    throw new ActionInputError(
      `forge_url ${JSON.stringify(forgeUrl.slice(0, 80))} is not the App's URL, such as https://forge.example.com`,
    );
  }
  return {
    githubToken,
    ...(forgeUrl ? { forgeUrl: forgeUrl.replace(/\/+$/, "") } : {}),
    triggerLabel: label("trigger_label", "forge"),
    reviewLabel: label("review_label", "forge:review"),
    claudeVersion,
    ...(anthropicApiKey ? { anthropicApiKey } : {}),
    ...(claudeCodeOauthToken ? { claudeCodeOauthToken } : {}),
    ...(gateSecret ? { gateSecret } : {}),
  };
}

export function readRuntime(env: Env): ActionRuntime {
  const need = (name: string): string => {
    const value = env[name];
    if (!value) {
      throw new ActionInputError(
        `${name} is not set: forgechain's action runs as a step of a GitHub Actions job, which sets it`,
      );
    }
    return value;
  };
  const path = (name: string) => {
    const value = need(name);
    if (!isAbsolute(value)) throw new ActionInputError(`${name}=${value} is not an absolute path`);
    return value;
  };
  const url = (name: string) => {
    const value = need(name);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ActionInputError(`${name}=${value} is not a URL`);
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      throw new ActionInputError(`${name}=${value} is not an http(s) URL`);
    }
    return value.replace(/\/+$/, "");
  };
  const repository = need("GITHUB_REPOSITORY");
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) {
    throw new ActionInputError(`GITHUB_REPOSITORY=${repository} is not owner/name`);
  }
  return {
    eventName: need("GITHUB_EVENT_NAME"),
    eventPath: path("GITHUB_EVENT_PATH"),
    repository,
    apiUrl: url("GITHUB_API_URL"),
    graphqlUrl: url("GITHUB_GRAPHQL_URL"),
    serverUrl: url("GITHUB_SERVER_URL"),
    workspace: path("GITHUB_WORKSPACE"),
    runnerTemp: path("RUNNER_TEMP"),
    actor: need("GITHUB_ACTOR"),
    runId: need("GITHUB_RUN_ID"),
    runAttempt: env.GITHUB_RUN_ATTEMPT ?? "1",
    ...(env.GITHUB_OUTPUT ? { outputFile: path("GITHUB_OUTPUT") } : {}),
    ...(env.GITHUB_STEP_SUMMARY ? { summaryFile: path("GITHUB_STEP_SUMMARY") } : {}),
    ...(env.RUNNER_TOOL_CACHE ? { toolCache: path("RUNNER_TOOL_CACHE") } : {}),
  };
}

/**
 * Variables of the Actions runner that no box and no agent may see, beyond the agent's
 * allowlist (which keeps them out already): the runner's own tokens and the action's inputs.
 * Their values are registered as known secrets, so a diff, an output or the run output that
 * holds one is never pushed.
 */
export function workflowSecrets(env: Env): string[] {
  const names = Object.keys(env).filter(
    (n) =>
      n.startsWith("INPUT_") ||
      n === "ACTIONS_RUNTIME_TOKEN" ||
      n.startsWith("ACTIONS_ID_TOKEN_REQUEST_") ||
      n === "ACTIONS_CACHE_URL" ||
      n === "ACTIONS_RESULTS_URL",
  );
  return names
    .filter((n) => !/^INPUT_(TRIGGER_LABEL|REVIEW_LABEL|CLAUDE_VERSION|FORGE_URL)$/.test(n))
    .map((n) => env[n] ?? "")
    .filter((v) => v.length >= 8);
}
