/**
 * Webhook payloads → one typed event. Every handler parses its payload exactly once, here,
 * and works on the result only: the rest of the app never reads `context.payload`. Payloads
 * are signed by GitHub but their text fields (titles, bodies, comments, branch names) are
 * written by anyone who can open an issue, so they are size-limited and treated as data.
 */
import { z } from "zod";

export const MAX_TITLE = 1024;
export const MAX_BODY = 64 * 1024;

export interface RepoInfo {
  owner: string;
  name: string;
  /** owner/name as GitHub spells it. */
  fullName: string;
  defaultBranch: string;
}

export interface Actor {
  login: string;
  /** `[bot]` logins and `type: Bot` accounts; they never trigger anything (no loops). */
  isBot: boolean;
}

export interface PullInfo {
  number: number;
  title: string;
  body: string;
  nodeId: string;
  headSha: string;
  headRef: string;
  baseRef: string;
  /** The head lives in another repository (or the fork was deleted). */
  fromFork: boolean;
  labels: string[];
}

interface Common {
  delivery: string;
  installationId: number;
  repo: RepoInfo;
  sender: Actor;
}

export type ForgeEvent =
  | (Common & {
      kind: "issue-labeled";
      label: string;
      issue: { number: number; title: string; body: string; isPullRequest: boolean };
    })
  | (Common & {
      kind: "pull-request";
      action: "labeled" | "opened" | "synchronize";
      /** Only for `labeled`. */
      label?: string;
      pull: PullInfo;
    })
  | (Common & {
      kind: "comment";
      issue: { number: number; title: string; body: string; isPullRequest: boolean };
      comment: { id: number; body: string; author: Actor };
    })
  | (Common & {
      /** A workflow_dispatch naming an issue (the Action only): its text is asked from the API. */
      kind: "dispatch";
      issueNumber: number;
    })
  | (Common & {
      kind: "check-rerequested";
      check: { name: string; externalId: string; headSha: string };
    })
  | {
      kind: "installation";
      delivery: string;
      action: string;
      installationId: number | null;
      account: string | null;
    }
  | { kind: "ignored"; delivery: string; reason: string };

const login = z.string().min(1).max(100);
const user = z.object({ login, type: z.string().optional() });
const text = z
  .string()
  .nullish()
  .transform((s) => s ?? "");
const repository = z.object({
  name: z.string().min(1).max(100),
  full_name: z.string().min(3).max(200),
  default_branch: z.string().min(1).max(255).optional(),
  owner: z.object({ login }),
});
const installation = z.object({ id: z.number().int().positive() });
// Optional here, required below unless the caller is the Action: a workflow's event payloads
// carry no installation (the workflow's token stands in for it).
const common = z.object({ repository, installation: installation.optional(), sender: user });
const issue = z.object({
  number: z.number().int().positive(),
  title: text,
  body: text,
  pull_request: z.unknown().optional(),
});
const label = z.object({ name: z.string().min(1).max(100) });
const pull = z.object({
  number: z.number().int().positive(),
  node_id: z.string().min(1),
  title: text,
  body: text,
  labels: z.array(label).optional(),
  head: z.object({
    sha: z.string().regex(/^[0-9a-f]{40}$/),
    ref: z.string().min(1).max(255),
    repo: z.object({ full_name: z.string() }).nullish(),
  }),
  base: z.object({ ref: z.string().min(1).max(255) }),
});

// workflow_dispatch inputs are strings as typed in the form (a `type: number` input may arrive
// as a number): "7" and "#7" name issue 7; anything else is refused with what was given.
const issueInput = z.union([
  z.number().int().positive().max(999_999_999),
  z
    .string()
    .regex(/^\s*#?\d{1,9}\s*$/)
    .transform((v) => Number(v.trim().replace(/^#/, ""))),
]);
const dispatchSchema = common.extend({ inputs: z.record(z.string(), z.unknown()).nullish() });

const schemas = {
  "issues.labeled": common.extend({ label, issue }),
  pull_request: common.extend({ label: label.optional(), pull_request: pull }),
  "issue_comment.created": common.extend({
    issue,
    comment: z.object({ id: z.number().int(), body: text, user }),
  }),
  "check_run.rerequested": common.extend({
    check_run: z.object({
      name: z.string().max(200),
      external_id: z.string().nullish(),
      head_sha: z.string().regex(/^[0-9a-f]{40}$/),
    }),
  }),
};

export function isBotLogin(name: string, type?: string): boolean {
  return type === "Bot" || name.toLowerCase().endsWith("[bot]");
}

function actor(u: { login: string; type?: string | undefined }): Actor {
  return { login: u.login, isBot: isBotLogin(u.login, u.type) };
}

function repoInfo(r: z.infer<typeof repository>): RepoInfo {
  return {
    owner: r.owner.login,
    name: r.name,
    fullName: r.full_name,
    defaultBranch: r.default_branch ?? "main",
  };
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

/**
 * `name` is the webhook event name (X-GitHub-Event), `action` the payload's action. `workflow`:
 * the payload comes from a GitHub Actions event (GITHUB_EVENT_PATH), which names no installation;
 * its events get installation id 0.
 */
export function parseWebhook(
  name: string,
  payload: unknown,
  delivery: string,
  options: { workflow?: boolean } = {},
): ForgeEvent {
  const action = String((payload as { action?: unknown } | null)?.action ?? "");
  const ignored = (reason: string): ForgeEvent => ({ kind: "ignored", delivery, reason });
  if (name === "installation" || name === "installation_repositories") {
    const p = payload as { installation?: { id?: unknown; account?: { login?: unknown } } };
    return {
      kind: "installation",
      delivery,
      action: `${name}.${action}`,
      installationId: typeof p?.installation?.id === "number" ? p.installation.id : null,
      account:
        typeof p?.installation?.account?.login === "string" ? p.installation.account.login : null,
    };
  }
  if (name === "workflow_dispatch") return parseDispatch(payload, delivery, options);
  const key =
    name === "pull_request" && ["labeled", "opened", "synchronize"].includes(action)
      ? "pull_request"
      : `${name}.${action}`;
  if (!(key in schemas)) return ignored(`${name}.${action} is not handled`);
  const parsed = schemas[key as keyof typeof schemas].safeParse(payload);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join(".") || "payload";
    return ignored(`${name}.${action}: unexpected payload at ${where}`);
  }
  const d = parsed.data;
  if (!d.installation && !options.workflow) {
    return ignored(`${name}.${action}: unexpected payload at installation`);
  }
  const base: Common = {
    delivery,
    installationId: d.installation?.id ?? 0,
    repo: repoInfo(d.repository),
    sender: actor(d.sender),
  };
  const issueOf = (i: z.infer<typeof issue>) => ({
    number: i.number,
    title: clip(i.title, MAX_TITLE),
    body: clip(i.body, MAX_BODY),
    isPullRequest: i.pull_request !== undefined && i.pull_request !== null,
  });
  if (key === "issues.labeled") {
    const p = d as z.infer<(typeof schemas)["issues.labeled"]>;
    return { ...base, kind: "issue-labeled", label: p.label.name, issue: issueOf(p.issue) };
  }
  if (key === "pull_request") {
    const p = d as z.infer<(typeof schemas)["pull_request"]>;
    const pr = p.pull_request;
    return {
      ...base,
      kind: "pull-request",
      action: action as "labeled" | "opened" | "synchronize",
      ...(action === "labeled" && p.label ? { label: p.label.name } : {}),
      pull: {
        number: pr.number,
        title: clip(pr.title, MAX_TITLE),
        body: clip(pr.body, MAX_BODY),
        nodeId: pr.node_id,
        headSha: pr.head.sha,
        headRef: pr.head.ref,
        baseRef: pr.base.ref,
        fromFork: pr.head.repo?.full_name !== p.repository.full_name,
        labels: (pr.labels ?? []).map((l) => l.name),
      },
    };
  }
  if (key === "issue_comment.created") {
    const p = d as z.infer<(typeof schemas)["issue_comment.created"]>;
    return {
      ...base,
      kind: "comment",
      issue: issueOf(p.issue),
      // Not clipped: the command parser refuses an over-long comment itself, cheaply.
      comment: { id: p.comment.id, body: p.comment.body, author: actor(p.comment.user) },
    };
  }
  const p = d as z.infer<(typeof schemas)["check_run.rerequested"]>;
  return {
    ...base,
    kind: "check-rerequested",
    check: {
      name: p.check_run.name,
      externalId: p.check_run.external_id ?? "",
      headSha: p.check_run.head_sha,
    },
  };
}

/** A workflow_dispatch with an `issue` input → the change chain on that issue (the Action). */
function parseDispatch(
  payload: unknown,
  delivery: string,
  options: { workflow?: boolean },
): ForgeEvent {
  const ignored = (reason: string): ForgeEvent => ({ kind: "ignored", delivery, reason });
  // A GitHub App never receives a workflow's dispatch: only the Action acts on one.
  if (!options.workflow) return ignored("workflow_dispatch is not handled");
  const parsed = dispatchSchema.safeParse(payload);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join(".") || "payload";
    return ignored(`workflow_dispatch: unexpected payload at ${where}`);
  }
  const given = parsed.data.inputs?.issue;
  const issue = issueInput.safeParse(given);
  if (!issue.success) {
    const shown = given === undefined ? "nothing" : JSON.stringify(given).slice(0, 60);
    return ignored(
      `workflow_dispatch: the \`issue\` input must be the number of the issue to work on (got ${shown})`,
    );
  }
  return {
    kind: "dispatch",
    delivery,
    installationId: parsed.data.installation?.id ?? 0,
    repo: repoInfo(parsed.data.repository),
    sender: actor(parsed.data.sender),
    issueNumber: issue.data,
  };
}
