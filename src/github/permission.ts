import { type PortContext, requestOptions } from "./context.js";
import { statusOf, toGitHubError } from "./errors.js";
import type { GitHubPort, Permission } from "./port.js";

const ROLES: ReadonlySet<string> = new Set([
  "admin",
  "maintain",
  "write",
  "triage",
  "read",
  "none",
]);
/** The legacy `permission` field maps maintain → write and triage → read. */
const LEGACY: Record<string, Permission> = {
  admin: "admin",
  write: "write",
  read: "read",
  none: "none",
};
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;

/** R1.4: write, maintain and admin may trigger forgechain; nobody else. */
export function isTrustedPermission(permission: Permission): boolean {
  return permission === "admin" || permission === "maintain" || permission === "write";
}

export function getPermission(ctx: PortContext): GitHubPort["getPermission"] {
  return async ({ owner, repo, username }) => {
    // Not a user login (a bot's `name[bot]`, or junk): no permission, and no request.
    if (!LOGIN.test(username)) return "none";
    try {
      const { data } = await ctx.octokit.rest.repos.getCollaboratorPermissionLevel({
        owner,
        repo,
        username,
        request: requestOptions(ctx),
      });
      // role_name is the real role (maintain, triage, or a custom role's name); a custom
      // role falls back to the base permission GitHub reports for it.
      const role = (data as { role_name?: unknown }).role_name;
      if (typeof role === "string" && ROLES.has(role)) return role as Permission;
      return LEGACY[data.permission] ?? "none";
    } catch (error) {
      // Not a collaborator / no such user: untrusted. Anything else is an error, and the
      // caller fails closed.
      if (statusOf(error) === 404) return "none";
      throw toGitHubError("getPermission", error);
    }
  };
}
