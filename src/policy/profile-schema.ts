import * as z from "zod";
import { READ_ONLY_ROLES, ROLES } from "../roles/role-names.js";
import { isComponentDir, PROVIDER_NAMES, TIERS } from "./forge-config-schema.js";

/**
 * A tool pattern as Claude Code writes them: `Read`, `Edit(src/**)`, `Bash(git push:*)`,
 * `Skill(name)`, `mcp__server__tool`.
 */
const TOOL_PATTERN = /^[A-Za-z][A-Za-z0-9_]*(?:\((?:.|\n)+\))?$/;

const toolPattern = z
  .string()
  .max(300)
  .regex(TOOL_PATTERN)
  .describe("a tool pattern: Tool or Tool(argument), e.g. Edit(src/**) or Bash(git push:*)");

const subpath = z
  .string()
  .refine(isComponentDir, "not a path inside the workspace")
  .describe('a path relative to the workspace root, like ".forge" or "build/out"');

/**
 * profiles/<role>.json (R7.3): the fields of seed 003 that this runner honours, and no
 * others — an unknown field is an error, so a profile cannot carry a setting that silently
 * does nothing (e.g. a `permission_mode: bypassPermissions` copied from the seed).
 */
export const ProfileSchema = z
  .strictObject({
    name: z.string().min(1).describe("the role name; matches the file name"),
    role: z.enum(ROLES),
    cli: z.enum(PROVIDER_NAMES).describe("the CLI this role runs with"),
    model_tier_default: z.enum(TIERS).describe("fast, balanced or deep (never a model name)"),
    allowed_tools: z.array(toolPattern).max(200),
    disallowed_tools: z.array(toolPattern).max(200),
    max_turns: z.number().int().min(1).max(1000).optional(),
    max_budget_usd: z.number().positive().max(1000).optional(),
    parallel_eligible: z
      .boolean()
      .describe("false for roles that write: two writers never share a worktree"),
    sandbox: z.strictObject({
      read_only_repo: z.boolean().describe("true: the repository is mounted read-only"),
      write_subpaths: z.array(subpath).max(50),
      deny_subpaths: z.array(subpath).max(50),
      allow_network: z
        .boolean()
        .describe("false: no direct network; only the runner's egress allowlist"),
    }),
  })
  .superRefine((p, ctx) => {
    if (p.name !== p.role) {
      ctx.addIssue({
        code: "custom",
        path: ["name"],
        message: `name "${p.name}" differs from role "${p.role}"; they must be equal`,
      });
    }
    // R2.7/R4.4: a read-only role may not be given a writable repository by its profile.
    if (READ_ONLY_ROLES.has(p.role) && !p.sandbox.read_only_repo) {
      ctx.addIssue({
        code: "custom",
        path: ["sandbox", "read_only_repo"],
        message: `${p.role} is a read-only role; sandbox.read_only_repo must be true`,
      });
    }
    // Single-writer rule: a role that can write the repository never runs in parallel.
    if (!p.sandbox.read_only_repo && p.parallel_eligible) {
      ctx.addIssue({
        code: "custom",
        path: ["parallel_eligible"],
        message: "a role that writes the repository must have parallel_eligible: false",
      });
    }
  });

export type Profile = z.infer<typeof ProfileSchema>;
