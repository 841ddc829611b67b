import * as z from "zod";
import { BUILTIN_CONTROLS, isBuiltinRun, isKnownBuiltin } from "./builtin-controls.js";
import { parseHostEntry } from "./egress-entry.js";

/** The file the repository's policy lives in (read from the default branch only, R8.1). */
export const FORGE_CONFIG_PATH = ".github/forge.yml";

export const STACKS = ["node", "python", "go", "rust"] as const;
export type Stack = (typeof STACKS)[number];
export const TIERS = ["fast", "balanced", "deep"] as const;
export type Tier = (typeof TIERS)[number];
export const PROVIDER_NAMES = ["claude", "codex"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export const REVIEW_EVENTS = ["opened", "synchronize"] as const;
export type ReviewEvent = (typeof REVIEW_EVENTS)[number];
/**
 * How much diff the reviewer and security may be shown (`review.max_diff_bytes`). The whole
 * diff is shown or the step fails before its agent starts — never a cut (R4.7). The floor
 * keeps an ordinary change reviewable; the ceiling is what a model's context window can hold
 * with the role's instructions and the control results beside it (about 600k tokens of code).
 */
export const DIFF_LIMIT = {
  default: 256 * 1024,
  min: 16 * 1024,
  max: 2 * 1024 * 1024,
} as const;
export const REGISTRY_ROLES = ["architect", "builder", "reviewer", "security", "docs"] as const;
export type RegistryRole = (typeof REGISTRY_ROLES)[number];

const CONTROL_NAME = /^[a-z][a-z0-9_-]{0,39}$/;
const SKILL = /^[a-z0-9][a-z0-9-]{0,63}$/;
// A model id reaches an argv as the value of --model: no spaces, and no leading dash so it
// can never be read as a flag.
const MODEL = /^[A-Za-z0-9][A-Za-z0-9._:/[\]-]{0,99}$/;
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;
const PINNED_REF = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const command = z
  .string()
  .min(1)
  .max(4000)
  .refine((s) => s.trim().length > 0 && !s.includes("\0"), "a command must not be empty")
  .describe("a shell command, run in the box from the repository (or component) folder");

const setup = z
  .array(command)
  .max(50)
  .describe("install commands run in the box before the controls, in order");

const control = z
  .strictObject({
    run: command
      .refine(
        (s) => !isBuiltinRun(s) || isKnownBuiltin(s),
        `unknown built-in; the built-ins are: ${Object.keys(BUILTIN_CONTROLS).join(", ")}`,
      )
      .describe(
        `the command of this control, or a built-in (${Object.keys(BUILTIN_CONTROLS).join(", ")})`,
      ),
    advisory: z
      .boolean()
      .optional()
      .describe("true: a failure is reported with a warning and never blocks (default false)"),
  })
  .describe("a control: { run: <command>, advisory?: true|false }");

const controlName = z
  .string()
  .regex(CONTROL_NAME)
  .describe("a control name: lower-case letters, digits, - and _, starting with a letter");

const validate = z
  .record(controlName, control)
  .describe("named controls (test, security, lint, …) run in the box after the builder");

const componentDir = z
  .string()
  .refine(isComponentDir, "not a folder inside the repository")
  .describe('a folder relative to the repository root, like "web" or "services/api"');

const component = z
  .strictObject({ setup: setup.optional(), validate: validate.optional() })
  .describe("setup and controls for one folder; its controls run in that folder");

const label = z.string().min(1).max(50).describe("a GitHub label name");

// The entry's own parser checks the length too: one message per bad entry, not two.
const hostEntry = z
  .string()
  .superRefine((text, ctx) => {
    const parsed = parseHostEntry(text);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
  })
  .describe(
    "a host[:port] such as registry.npmjs.org, *.pythonhosted.org, pypi.example.com:8443 or [::1]:9000; port 443 when absent",
  );

const hostList = z.array(hostEntry).max(100);

const roleName = z.enum(REGISTRY_ROLES).describe(`a role: ${REGISTRY_ROLES.join(", ")}`);

export const ForgeConfigSchema = z
  .strictObject({
    labels: z
      .strictObject({
        change: label.optional().describe('label that starts a change chain (default "forge")'),
        review: label
          .optional()
          .describe('label that starts a review chain (default "forge:review")'),
      })
      .optional(),
    chains: z
      .strictObject({
        change: z.strictObject({ enabled: z.boolean().optional() }).optional(),
        review: z
          .strictObject({
            enabled: z.boolean().optional(),
            events: z
              .array(z.enum(REVIEW_EVENTS))
              .max(REVIEW_EVENTS.length)
              .optional()
              .describe("pull_request actions that start a review without the label"),
          })
          .optional(),
      })
      .optional()
      .describe("which chains run"),
    setup: setup.optional(),
    validate: validate.optional(),
    components: z.record(componentDir, component).optional(),
    builder: z
      .strictObject({
        allow: z
          .array(z.string().min(1).max(200).describe("a Bash command, `*` for any text"))
          .max(50)
          .optional()
          .describe(
            'Bash commands the builder may run besides forgechain\'s list, as Claude Code permission patterns ("python3 -m unittest *"); never a tool rule, and never what every role is denied (network tools, pushes, npx, uvx, secret files)',
          ),
      })
      .optional()
      .describe("what the builder may run in this repository (read-only roles are never widened)"),
    network: z
      .strictObject({
        setup: hostList
          .optional()
          .describe("hosts the setup phase may reach besides the package registries of the stack"),
        controls: hostList
          .optional()
          .describe("hosts the controls and scripts/verify.sh may reach (none by default)"),
      })
      .optional()
      .describe(
        "hosts the boxes may reach through the egress proxy, added to the deployment's (never removed); the agent steps reach their model endpoint only",
      ),
    protected_paths: z
      .array(z.string().min(1).max(500))
      .max(200)
      .optional()
      .describe(
        "gitignore-style patterns added to the deployment's protected paths (never removed)",
      ),
    handbook: z
      .strictObject({
        repo: z.string().regex(REPO).describe("the handbook repository, owner/name"),
        ref: z
          .string()
          .regex(PINNED_REF)
          .describe("a full commit sha (a pinned ref; a branch or tag can move)"),
      })
      .optional()
      .describe("where role definitions come from: docs/agents/seeds/<role>.md at ref"),
    provider: z
      .strictObject({
        name: z.enum(PROVIDER_NAMES).optional(),
        models: z
          .strictObject({
            fast: z.string().regex(MODEL).optional(),
            balanced: z.string().regex(MODEL).optional(),
            deep: z.string().regex(MODEL).optional(),
          })
          .optional()
          .describe("model id per tier (a model id: letters, digits, . _ : / - ; no spaces)"),
      })
      .optional(),
    budgets: z
      .strictObject({
        max_turns: z.number().int().min(1).max(1000).optional(),
        max_budget_usd: z.number().positive().max(1000).optional(),
        request_budget: z
          .number()
          .int()
          .min(1)
          .max(3)
          .optional()
          .describe("the most questions a run may ask a human: 1 to 3"),
      })
      .optional(),
    review: z
      .strictObject({
        max_diff_bytes: z
          .number()
          .int()
          .min(DIFF_LIMIT.min)
          .max(DIFF_LIMIT.max)
          .optional()
          .describe(
            `the largest diff in bytes the reviewer and security are shown whole (a larger change fails before they start): ${DIFF_LIMIT.min} (16 KiB) to ${DIFF_LIMIT.max} (2 MiB), default ${DIFF_LIMIT.default} (256 KiB)`,
          ),
      })
      .optional()
      .describe("what the reviewer and security are shown"),
    trusted: z
      .array(z.string().regex(LOGIN).describe("a GitHub login"))
      .max(100)
      .optional()
      .describe("GitHub logins allowed to trigger forge besides users with write access"),
    roles: z
      .strictObject({
        enabled: z.array(roleName).optional().describe("optional roles to switch on (docs)"),
        disabled: z.array(roleName).optional().describe("optional roles to switch off"),
        skills: z
          .partialRecord(roleName, z.array(z.string().regex(SKILL)).max(20))
          .optional()
          .describe("per role, the skills to materialise (slugs)"),
        allowed_tools: z
          .partialRecord(roleName, z.array(z.string().min(1).max(200)).max(100))
          .optional()
          .describe("per role, a narrower tool list (never wider than the platform's)"),
      })
      .optional()
      .describe("project overrides of the role registry: they narrow, never grant"),
  })
  .describe("forgechain repository configuration (.github/forge.yml)");

export type ForgeConfig = z.infer<typeof ForgeConfigSchema>;
export type ControlSpec = NonNullable<ForgeConfig["validate"]>[string];
export type RoleOverrides = NonNullable<ForgeConfig["roles"]>;

/** A relative, normalised folder path that stays inside the repository. */
export function isComponentDir(dir: string): boolean {
  if (dir.length === 0 || dir.length > 300 || dir.startsWith("/") || dir.includes("\\")) {
    return false;
  }
  const parts = dir.split("/");
  return parts.every((p) => p !== "" && p !== "." && p !== ".." && !p.includes("\0"));
}
