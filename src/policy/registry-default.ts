import { ROLES, type Role } from "../roles/role-names.js";
import type { Profile } from "./profile-schema.js";
import type { RoleDocument } from "./registry.js";

/** R2.3: where a role's definition lives in the handbook. */
export function handbookRolePath(role: string): string {
  return `docs/agents/seeds/${role}.md`;
}

/**
 * The platform registry a deployment starts from: the four chain roles (mandatory) with the
 * allow lists of their profiles — so an override can never grant a tool the profile does not
 * allow — and the optional docs role (off unless enabled), which guides the builder and so
 * gets the builder's tools.
 */
export function defaultRoleDocument(profiles: Record<Role, Profile>): RoleDocument {
  const roles = Object.fromEntries(
    ROLES.map((role) => [
      role,
      {
        instructions: handbookRolePath(role),
        allowed_tools: [...profiles[role].allowed_tools],
        mandatory: true,
        enabled: true,
      },
    ]),
  ) as Record<Role, RoleDocument["roles"]["architect"]>;
  return {
    version: 1,
    request_budget: 3,
    roles: {
      ...roles,
      docs: {
        instructions: handbookRolePath("docs"),
        skills: ["documentation"],
        allowed_tools: [...profiles.builder.allowed_tools],
        mandatory: false,
        enabled: false,
      },
    },
  };
}
