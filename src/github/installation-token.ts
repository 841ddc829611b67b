// An installation's access token, for the runner's git only (every API call goes through the
// port). It is read from the client Probot made for the installation, which creates, refreshes
// and caches the token itself.
import type { PortOctokit } from "./context.js";

type AuthHook = (
  request: unknown,
  route: string,
  parameters: Record<string, unknown>,
) => Promise<{ data: unknown }>;

export async function installationToken(octokit: PortOctokit): Promise<string> {
  // `octokit.auth({ type: "installation" })` would ask for the token on api.github.com even on
  // GitHub Enterprise (Probot gives its auth strategy a request without the baseUrl; the
  // strategy adds it only inside its request hook). So the token is taken from that hook: a
  // probe request that is never sent returns the Authorization header the hook set, after the
  // hook created (or took from Probot's cache) the token on the right host.
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
}
