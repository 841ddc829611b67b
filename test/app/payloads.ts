/**
 * Webhook payloads from @octokit/webhooks-examples (GitHub's own examples), adapted only in
 * the fields a case needs: the repository, the sender, the label, the text — and
 * `installation`, which most examples lack.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples/api.github.com/index.json") as Array<{
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}>;

type Json = Record<string, unknown>;

export const OWNER = "octo-org";
export const REPO = "widgets";
export const FULL = `${OWNER}/${REPO}`;
export const INSTALLATION = 42;

/** An example of the event (with `action`; an event that has none, such as workflow_dispatch: undefined). */
export function example(name: string, action: string | undefined): Json {
  const found = examples.find((e) => e.name === name)?.examples.find((x) => x.action === action);
  if (!found) throw new Error(`no example ${name}.${action}`);
  return structuredClone(found) as Json;
}

function user(login: string, type = "User"): Json {
  const base = (example("issues", "labeled").sender ?? {}) as Json;
  return { ...base, login, type };
}

function adapt(p: Json, sender: string, repo = { owner: OWNER, name: REPO }): Json {
  const repository = p.repository as Json;
  p.repository = {
    ...repository,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    default_branch: "main",
    owner: { ...(repository.owner as Json), login: repo.owner },
  };
  p.installation = { id: INSTALLATION, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI=" };
  p.sender = user(sender, sender.endsWith("[bot]") ? "Bot" : "User");
  return p;
}

export function issueLabeled(o: {
  sender: string;
  label?: string;
  number?: number;
  title?: string;
  body?: string;
}): Json {
  const p = adapt(example("issues", "labeled"), o.sender);
  p.label = { ...(p.label as Json), name: o.label ?? "forge" };
  p.issue = {
    ...(p.issue as Json),
    number: o.number ?? 7,
    title: o.title ?? "Greet with an exclamation mark",
    body: o.body ?? "greet.sh should print 'Hello, NAME!'",
  };
  delete (p.issue as Json).pull_request;
  return p;
}

export function pullRequest(o: {
  action: "labeled" | "opened" | "synchronize";
  sender: string;
  headSha: string;
  number?: number;
  label?: string;
  labels?: string[];
  headRef?: string;
  fork?: boolean;
}): Json {
  const p = adapt(example("pull_request", o.action), o.sender);
  const pr = p.pull_request as Json;
  const head = pr.head as Json;
  p.pull_request = {
    ...pr,
    number: o.number ?? 12,
    title: "Review me",
    body: "A change to review",
    labels: (o.labels ?? []).map((name) => ({ ...((pr.labels as Json[])[0] ?? {}), name })),
    head: {
      ...head,
      sha: o.headSha,
      ref: o.headRef ?? "feature",
      repo: { ...(head.repo as Json), full_name: o.fork ? `someone/${REPO}` : FULL },
    },
    base: { ...(pr.base as Json), ref: "main" },
  };
  if (o.action === "labeled") p.label = { ...(p.label as Json), name: o.label ?? "forge:review" };
  p.number = o.number ?? 12;
  return p;
}

export function commentCreated(o: {
  author: string;
  body: string;
  number?: number;
  onPull?: boolean;
  repo?: { owner: string; name: string };
}): Json {
  const p = adapt(example("issue_comment", "created"), o.author, o.repo);
  const issue = p.issue as Json;
  p.issue = {
    ...issue,
    number: o.number ?? 7,
    title: "Greet with an exclamation mark",
    body: "the issue text",
  };
  if (o.onPull)
    (p.issue as Json).pull_request = {
      url: "https://api.github.com/x",
      html_url: "https://github.com/x",
    };
  else delete (p.issue as Json).pull_request;
  p.comment = {
    ...(p.comment as Json),
    id: Math.floor(Math.random() * 1e9),
    body: o.body,
    user: user(o.author, o.author.endsWith("[bot]") ? "Bot" : "User"),
  };
  return p;
}

export function checkRerequested(o: {
  sender: string;
  name: string;
  externalId: string;
  headSha: string;
}): Json {
  const p = adapt(example("check_run", "rerequested"), o.sender);
  p.check_run = {
    ...(p.check_run as Json),
    name: o.name,
    external_id: o.externalId,
    head_sha: o.headSha,
  };
  return p;
}

/** A workflow_dispatch of the forgechain workflow with its `issue` input (as typed in the form). */
export function workflowDispatch(o: { sender: string; issue: unknown }): Json {
  const p = adapt(example("workflow_dispatch", undefined), o.sender);
  p.inputs = o.issue === undefined ? {} : { issue: o.issue };
  return p;
}
