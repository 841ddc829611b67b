/**
 * R1.4: who may pull a trigger. Repository permission write, maintain or admin, asked from
 * the API every time (a payload's author_association is never used), or a login on the
 * deployment's (or the repository's default-branch config's) trusted list. Bots never —
 * not even when listed — so no two bots (or the app and itself) can drive each other.
 */

import { isTrustedPermission } from "../github/permission.js";
import type { GitHubPort } from "../github/port.js";
import type { Actor, RepoInfo } from "./events.js";

export type TrustDecision =
  | { trusted: true; via: "permission" | "trusted-list"; permission?: string }
  | { trusted: false; reason: string };

export async function checkTrust(
  actor: Actor,
  repo: RepoInfo,
  deps: { port: GitHubPort; trusted: readonly string[] },
): Promise<TrustDecision> {
  if (actor.isBot) return { trusted: false, reason: "bots do not trigger forgechain" };
  if (onTrustedList(actor, deps.trusted)) return { trusted: true, via: "trusted-list" };
  let permission: string;
  try {
    permission = await deps.port.getPermission({
      owner: repo.owner,
      repo: repo.name,
      username: actor.login,
    });
  } catch {
    // Fail closed: without an answer from GitHub nobody is trusted.
    return { trusted: false, reason: "GitHub did not say what permission you have; try again" };
  }
  if (isTrustedPermission(permission as Parameters<typeof isTrustedPermission>[0])) {
    return { trusted: true, via: "permission", permission };
  }
  return {
    trusted: false,
    reason: `forgechain only acts for people with write, maintain or admin permission on ${repo.fullName} (yours: ${permission})`,
  };
}

/** A human login on a trusted list (case-insensitive). Bots never, even when listed. */
export function onTrustedList(actor: Actor, list: readonly string[]): boolean {
  if (actor.isBot) return false;
  const login = actor.login.toLowerCase();
  return list.some((t) => t.toLowerCase() === login);
}

/** FORGE_TRUSTED: comma- or space-separated logins. */
export function parseTrustedList(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(s));
}
