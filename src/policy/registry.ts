import * as z from "zod";
import { ROLES } from "../roles/role-names.js";
import { contentDigest } from "./canonical-json.js";
import { REGISTRY_ROLES, type RegistryRole, type RoleOverrides } from "./forge-config-schema.js";

const SKILL = /^[a-z0-9][a-z0-9-]{0,63}$/;

const RoleDefinitionSchema = z.strictObject({
  /** Path of the role definition inside the handbook, e.g. docs/agents/seeds/builder.md. */
  instructions: z.string().min(1).max(300),
  /** The platform's skill selection; absent = the role definition's own `skills:` line. */
  skills: z.array(z.string().regex(SKILL)).max(50).optional(),
  /** The platform allow list: overrides can only pick from it. */
  allowed_tools: z.array(z.string().min(1).max(300)).max(200),
  mandatory: z.boolean(),
  /** Platform default for optional roles; mandatory roles are always enabled. */
  enabled: z.boolean(),
});

/** Seed 004's RoleDocument: the platform's versioned role registry. */
export const RoleDocumentSchema = z
  .strictObject({
    version: z.number().int().min(1),
    request_budget: z.number().int().min(1).max(3),
    roles: z.strictObject({
      architect: RoleDefinitionSchema,
      builder: RoleDefinitionSchema,
      reviewer: RoleDefinitionSchema,
      security: RoleDefinitionSchema,
      docs: RoleDefinitionSchema.optional(),
    }),
  })
  .superRefine((doc, ctx) => {
    // The four chain roles are the platform's gates: the document itself cannot make one
    // optional, or an override could then switch the reviewer off.
    for (const role of ROLES) {
      if (!doc.roles[role].mandatory) {
        ctx.addIssue({
          code: "custom",
          path: ["roles", role, "mandatory"],
          message: `${role} is a chain role and must be mandatory`,
        });
      }
    }
  });

export type RoleDocument = z.infer<typeof RoleDocumentSchema>;
export type RoleDefinition = z.infer<typeof RoleDefinitionSchema>;

export interface FrozenRole {
  role: RegistryRole;
  mandatory: boolean;
  /** Where the instructions come from (R2.3): the pinned handbook, else the repository. */
  instructions:
    | { source: "handbook"; repo: string; ref: string; path: string }
    | { source: "repository"; path: string };
  /** Skills to materialise; null = the role definition's own `skills:` line decides. */
  skills: string[] | null;
  /** The tools this run may use: platform list ∩ every override ∩ what is available. */
  allowed_tools: string[];
  /** Requested and allowed, but not available on this runner (reported, not fatal). */
  unavailable_tools: string[];
}

/** R8.5: what a run freezes. Later registry edits do not change it. */
export interface FrozenRegistry {
  revision: number;
  requestBudget: number;
  /** The selected (enabled) roles only. */
  roles: Partial<Record<RegistryRole, FrozenRole>>;
  /** sha256 over the canonical JSON of revision, request budget and roles. */
  digest: string;
  /** Every override that was ignored, and why; `path` is inside the override object. */
  notices: RegistryNotice[];
}

export interface RegistryNotice {
  /** Which override layer (0 = the first: the project's; -1 = the options), and where in it. */
  layer: number;
  path: Array<string | number>;
  message: string;
}

export interface FreezeOptions {
  /** The pinned handbook; without it instructions fall back to `.claude/agents/<role>.md`. */
  handbook?: { repo: string; ref: string } | null;
  /** The repository's request budget: it can lower the document's, never raise it. */
  requestBudget?: number;
  /** Tools the runner can actually provide; omitted = all allowed tools are available. */
  availableTools?: readonly string[];
}

/**
 * Applies project and run overrides (in that order) to the platform document and freezes
 * the result. Overrides NARROW: allowed_tools is intersected with what the platform (and
 * every earlier layer) allows — a grant beyond it is ignored and reported; a mandatory role
 * cannot be disabled (reported); an unknown role cannot be enabled (reported).
 */
export function freezeRegistry(
  document: RoleDocument,
  overrides: RoleOverrides | readonly RoleOverrides[] = [],
  options: FreezeOptions = {},
): FrozenRegistry {
  const doc = RoleDocumentSchema.parse(document);
  const layers = (Array.isArray(overrides) ? overrides : [overrides]) as readonly RoleOverrides[];
  const notices: RegistryNotice[] = [];
  const present = REGISTRY_ROLES.filter((r) => doc.roles[r] !== undefined);
  const def = (r: RegistryRole) => doc.roles[r] as RoleDefinition;
  const enabled = new Set(present.filter((r) => def(r).mandatory || def(r).enabled));
  const tools = new Map(present.map((r) => [r, [...def(r).allowed_tools]]));
  const skills = new Map<RegistryRole, string[] | null>(
    present.map((r) => [r, def(r).skills ? [...(def(r).skills as string[])] : null]),
  );

  layers.forEach((layer, index) => {
    const label = layers.length > 1 ? `override ${index + 1}` : "override";
    const notice = (path: Array<string | number>, message: string) =>
      notices.push({ layer: index, path, message: `${label}: ${message}` });
    for (const [i, role] of (layer.enabled ?? []).entries()) {
      if (present.includes(role)) enabled.add(role);
      else notice(["enabled", i], `role "${role}" is not in the registry; it cannot be enabled`);
    }
    for (const [i, role] of (layer.disabled ?? []).entries()) {
      if (!present.includes(role)) continue;
      if (!def(role).mandatory) enabled.delete(role);
      else
        notice(
          ["disabled", i],
          `role "${role}" is mandatory and cannot be disabled; it stays enabled`,
        );
    }
    for (const [role, names] of entriesOf(layer.skills)) {
      if (!present.includes(role)) {
        notice(["skills", role], `skills for unknown role "${role}" ignored`);
        continue;
      }
      for (const [i, name] of names.entries()) {
        if (!SKILL.test(name)) {
          notice(
            ["skills", role, i],
            `skill name ${JSON.stringify(name)} is not a slug (a-z0-9-); ignored`,
          );
        }
      }
      skills.set(role, [...new Set(names.filter((n) => SKILL.test(n)))]);
    }
    for (const [role, wanted] of entriesOf(layer.allowed_tools)) {
      const current = tools.get(role);
      if (!current) {
        notice(["allowed_tools", role], `allowed_tools for unknown role "${role}" ignored`);
        continue;
      }
      const granted = new Set(current);
      for (const [i, tool] of wanted.entries()) {
        if (!granted.has(tool)) {
          notice(
            ["allowed_tools", role, i],
            `${role} may not be granted ${JSON.stringify(tool)} (not in the platform's allow list); ignored`,
          );
        }
      }
      tools.set(
        role,
        [...new Set(wanted)].filter((t) => granted.has(t)),
      );
    }
  });

  const available = options.availableTools ? new Set(options.availableTools) : null;
  const roles: Partial<Record<RegistryRole, FrozenRole>> = {};
  for (const role of present.filter((r) => enabled.has(r))) {
    const d = def(role);
    const allowed = tools.get(role) ?? [];
    roles[role] = {
      role,
      mandatory: d.mandatory,
      instructions: options.handbook
        ? {
            source: "handbook",
            repo: options.handbook.repo,
            ref: options.handbook.ref,
            path: d.instructions,
          }
        : { source: "repository", path: `.claude/agents/${role}.md` },
      skills: skills.get(role) ?? null,
      allowed_tools: available ? allowed.filter((t) => available.has(t)) : allowed,
      unavailable_tools: available ? allowed.filter((t) => !available.has(t)) : [],
    };
  }
  let requestBudget = doc.request_budget;
  if (options.requestBudget !== undefined) {
    if (options.requestBudget > requestBudget) {
      notices.push({
        layer: -1,
        path: [],
        message: `request budget ${options.requestBudget} is above the platform's ${requestBudget}; ${requestBudget} is used`,
      });
    } else requestBudget = Math.max(1, options.requestBudget);
  }
  const frozen = { revision: doc.version, requestBudget, roles };
  return { ...frozen, digest: contentDigest(frozen), notices };
}

function entriesOf<T>(
  record: Partial<Record<RegistryRole, T>> | undefined,
): Array<[RegistryRole, T]> {
  return Object.entries(record ?? {}) as Array<[RegistryRole, T]>;
}
