/**
 * Per-installation access, from Probot: a GitHub port over the installation's Octokit
 * (Probot refreshes and caches its tokens) and the raw token for git. This is Probot wiring
 * (authentication), not API use: every API call still goes through src/github.
 */
import type { Probot } from "probot";
import { createGitHubPort } from "../github/create-port.js";
import type { GitHubPort } from "../github/port.js";

type AuthHook = (
  request: unknown,
  route: string,
  parameters: Record<string, unknown>,
) => Promise<{ data: unknown }>;

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
      const octokit = await client(id);
      // `octokit.auth({ type: "installation" })` would ask for the token on api.github.com
      // even on GitHub Enterprise (Probot gives its auth strategy a request without the
      // baseUrl; the strategy adds it only inside its request hook). So the token is taken
      // from that hook: a probe request that is never sent returns the Authorization header
      // the hook set, after the hook created (or took from Probot's cache) the token on the
      // right host.
      const hook = (octokit.auth as unknown as { hook?: AuthHook }).hook;
      if (typeof hook !== "function") throw new Error("Probot's auth strategy has no request hook");
      const probe = Object.assign(
        async (options: { headers: Record<string, string> }) => ({
          data: options.headers.authorization,
        }),
        { endpoint: octokit.request.endpoint, defaults: octokit.request.defaults },
      );
      const { data } = await hook(probe, "GET /", {});
      const token = typeof data === "string" ? data.replace(/^(token|bearer) /i, "") : "";
      if (!/^[\x21-\x7e]+$/.test(token)) throw new Error("no installation token");
      return token;
    },
  };
}
