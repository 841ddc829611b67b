/** The four roles of a chain, in chain order. */
export const ROLES = ["architect", "builder", "reviewer", "security"] as const;
export type Role = (typeof ROLES)[number];

/** Roles that must not change the tree (R2.7, R4.4, R4.5). */
export const READ_ONLY_ROLES: ReadonlySet<Role> = new Set(["architect", "reviewer", "security"]);

/** Chains and their steps (R3.4). */
export const CHAINS = {
  change: ["architect", "builder", "reviewer", "security"],
  review: ["reviewer", "security"],
} as const satisfies Record<string, readonly Role[]>;
export type ChainKind = keyof typeof CHAINS;

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function isChainKind(value: unknown): value is ChainKind {
  return typeof value === "string" && Object.hasOwn(CHAINS, value);
}
