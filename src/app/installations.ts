/**
 * Per-installation access, from Probot: a GitHub port over the installation's Octokit
 * (Probot refreshes and caches its tokens) and the raw token for git, both from src/github:
 * nothing here touches an Octokit itself.
 */
import type { Probot } from "probot";
import { createGitHubPort } from "../github/create-port.js";
import { installationToken } from "../github/installation-token.js";
import type { GitHubPort } from "../github/port.js";

export interface Installations {
  port(installationId: number): Promise<GitHubPort>;
  /** An installation access token (valid ≤ 1 h), for the runner's git only. */
  token(installationId: number): Promise<string>;
}

export function probotInstallations(
  app: Probot,
  options: { botLogin?: string; timeoutMs?: number } = {},
): Installations {
  const ports = new Map<number, Promise<GitHubPort>>();
  const client = (id: number) => app.auth(id);
  return {
    port(id) {
      let port = ports.get(id);
      if (!port) {
        port = client(id).then((octokit) =>
          createGitHubPort({
            octokit,
            ...(options.botLogin ? { botLogin: options.botLogin } : {}),
            ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          }),
        );
        port.catch(() => ports.delete(id));
        ports.set(id, port);
      }
      return port;
    },
    async token(id) {
      return installationToken(await client(id));
    },
  };
}
