/**
 * The installation token reaches git only (R2.5): as an `http.extraHeader` passed through
 * git's GIT_CONFIG_* environment to the runner's own git processes — never in a URL (the
 * journal keeps `run.repo.remote` token-free, and a clone's .git/config the agent can read
 * holds the plain URL), never on a command line (visible in /proc), never in an agent's
 * environment (agent-env.ts builds that from an allowlist).
 */
import { registerKnownSecrets } from "../secrets/index.js";

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
// An installation token lives an hour; kept a day so a late copy is still caught, then
// forgotten so that the known values do not grow with every token the App ever fetched.
const TOKEN_MEMORY_MS = 24 * 3600_000;

export function gitAuthEnv(token: string): Record<string, string> {
  if (!/^[\x21-\x7e]{1,512}$/.test(token)) throw new TypeError("not a usable token");
  // Every scan (diff, outputs, run output, the push check) now looks for it in any encoding.
  registerKnownSecrets([token], { forgetAfterMs: TOKEN_MEMORY_MS });
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
}

/**
 * The git host's web base: FORGE_GIT_URL, else the GitHub Enterprise host Probot talks to
 * (GHE_PROTOCOL://GHE_HOST), else github.com. Taken from the deployment, never from a
 * payload's clone_url, so the token is only ever sent to the host it belongs to.
 */
export function gitWebBase(env: Record<string, string | undefined>): string {
  const explicit = env.FORGE_GIT_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  if (env.GHE_HOST) return `${env.GHE_PROTOCOL || "https"}://${env.GHE_HOST}`;
  return "https://github.com";
}

export function repoRemote(base: string, owner: string, repo: string): string {
  if (!NAME.test(owner) || !NAME.test(repo) || repo.startsWith(".") || owner.startsWith(".")) {
    throw new TypeError(`not a repository name: ${owner}/${repo}`.slice(0, 120));
  }
  return `${base}/${owner}/${repo}.git`;
}
