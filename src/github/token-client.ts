// A GitHub client for a plain token (the packaged Action's workflow or App token): the same
// ProbotOctokit the App's handlers get — throttling and retry plugins on — against the host the
// runner names (GITHUB_API_URL: github.com or a GitHub Enterprise Server), never a hard-coded one.
import { ProbotOctokit } from "probot";
import type { PortOctokit } from "./context.js";
import { createGitHubPort } from "./create-port.js";
import type { GitHubPort } from "./port.js";

export interface TokenClientOptions {
  token: string;
  /** GITHUB_API_URL, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  baseUrl: string;
  /**
   * GITHUB_GRAPHQL_URL (https://api.github.com/graphql, https://ghe.example.com/api/graphql).
   * Without it Octokit derives it from baseUrl, which is right for both of those hosts.
   */
  graphqlUrl?: string;
  /** Where Octokit's own log goes (warnings of its retry and throttling plugins). */
  log?: { warn(msg: string): void };
  timeoutMs?: number;
  /** The login the action's comments are made as (github-actions[bot] for the workflow token). */
  botLogin?: string;
}

export function tokenOctokit(o: TokenClientOptions): PortOctokit {
  const quiet = () => {};
  const octokit = new ProbotOctokit({
    auth: { token: o.token },
    baseUrl: o.baseUrl,
    log: { debug: quiet, info: quiet, warn: o.log?.warn ?? quiet, error: o.log?.warn ?? quiet },
  });
  // The runner names the GraphQL endpoint itself: use it rather than a guess from the REST one.
  // (An absolute url, and a baseUrl that is not a GHES `/api/v3` one, which Octokit would
  // otherwise rewrite to `/api/graphql` whatever the url says.)
  if (o.graphqlUrl) {
    octokit.graphql = octokit.graphql.defaults({
      baseUrl: new URL(o.graphqlUrl).origin,
      url: o.graphqlUrl,
    });
  }
  return octokit;
}

export function tokenPort(o: TokenClientOptions): GitHubPort {
  return createGitHubPort({
    octokit: tokenOctokit(o),
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.botLogin ? { botLogin: o.botLogin } : {}),
  });
}
