/**
 * A stateful fake of the GitHub REST/GraphQL operations forgechain uses: comments, check
 * runs, pull requests, permissions, installation tokens, auto-merge. Answers are built from
 * GitHub's own OpenAPI examples (so they pass the response-schema check) with the fields a
 * case needs changed. Used behind nock (test/app/app-kit.ts) and behind a real HTTP server
 * on loopback (fake-github-server.ts); both check every request against the description.
 */
import { randomBytes } from "node:crypto";
import { openApiExample } from "../harness/openapi-check.js";

type Json = Record<string, unknown>;

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string; type: string };
  edits: number;
}

export interface FakeCheckRun {
  id: number;
  name: string;
  headSha: string;
  externalId: string;
  status: string;
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  annotations: number;
  history: string[];
}

export interface FakePull {
  number: number;
  nodeId: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

export interface GitHubState {
  botLogin: string;
  /** login → permission ("write", "read", …); unknown logins are 404 (not a collaborator). */
  permissions: Map<string, string>;
  comments: FakeComment[];
  checkRuns: FakeCheckRun[];
  pulls: FakePull[];
  graphql: Array<{ query: string; variables: unknown }>;
  /** Issues the API answers for by number (GET …/issues/{n}); others are 404. */
  issues: Map<number, { title: string; body: string; isPullRequest?: boolean }>;
  /** Installation tokens issued, newest last. */
  tokens: string[];
  /** workflow_dispatch requests, oldest first; `onDispatch` is told of each (the runner). */
  dispatches: Dispatch[];
  onDispatch?: (d: Dispatch) => void;
  /** Workflow runs cancelled, by id. */
  cancelledRuns: number[];
  handle(method: string, path: string, body: unknown): { status: number; body: unknown };
  commentsOn(issue: number): FakeComment[];
  checksFor(headSha: string): FakeCheckRun[];
}

export interface Dispatch {
  owner: string;
  repo: string;
  /** The workflow file's name or id, as in the path. */
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
}

const json = (status: number, body: unknown) => ({ status, body });
const notFound = json(404, {
  message: "Not Found",
  documentation_url: "https://docs.github.com/rest",
});

export function createGitHubState(
  options: { botLogin?: string; owner?: string; repo?: string } = {},
): GitHubState {
  const botLogin = options.botLogin ?? "forgechain[bot]";
  const state: GitHubState = {
    botLogin,
    permissions: new Map(),
    comments: [],
    checkRuns: [],
    pulls: [],
    graphql: [],
    issues: new Map(),
    tokens: [],
    dispatches: [],
    cancelledRuns: [],
    handle,
    commentsOn: (issue) => state.comments.filter((c) => c.issue === issue),
    checksFor: (sha) => state.checkRuns.filter((c) => c.headSha === sha),
  };
  let nextId = 1000;

  function commentJson(c: FakeComment): Json {
    const base = openApiExample("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments");
    return {
      ...base,
      id: c.id,
      body: c.body,
      user: { ...(base.user as Json), login: c.user.login, type: c.user.type },
    };
  }

  function checkJson(c: FakeCheckRun): Json {
    const base = openApiExample("POST", "/repos/{owner}/{repo}/check-runs");
    return {
      ...base,
      id: c.id,
      name: c.name,
      head_sha: c.headSha,
      external_id: c.externalId,
      status: c.status,
      conclusion: c.conclusion,
      output: {
        ...(base.output as Json),
        title: c.title,
        summary: c.summary,
        annotations_count: c.annotations,
      },
    };
  }

  function pullJson(p: FakePull): Json {
    const base = openApiExample("POST", "/repos/{owner}/{repo}/pulls");
    return {
      ...base,
      requested_teams: [],
      number: p.number,
      node_id: p.nodeId,
      draft: p.draft,
      title: p.title,
      html_url: `https://github.example/pull/${p.number}`,
    };
  }

  function applyCheck(c: FakeCheckRun, b: Json) {
    if (typeof b.status === "string") c.status = b.status;
    if (typeof b.conclusion === "string") c.conclusion = b.conclusion;
    const out = b.output as Json | undefined;
    if (out) {
      if (typeof out.title === "string") c.title = out.title;
      if (typeof out.summary === "string") c.summary = out.summary;
      if (Array.isArray(out.annotations)) c.annotations += out.annotations.length;
    }
    c.history.push(c.conclusion ? `${c.status}:${c.conclusion}` : c.status);
  }

  type Route = [
    string,
    RegExp,
    (m: RegExpExecArray, url: URL, b: Json) => { status: number; body: unknown },
  ];
  const routes: Route[] = [
    [
      "POST",
      /^\/repos\/[^/]+\/[^/]+\/actions\/runs\/(\d+)\/cancel$/,
      (m) => {
        state.cancelledRuns.push(Number(m[1]));
        return json(202, {});
      },
    ],
    [
      "POST",
      /^\/repos\/([^/]+)\/([^/]+)\/actions\/workflows\/([^/]+)\/dispatches$/,
      (m, _u, b) => {
        const d: Dispatch = {
          owner: m[1] ?? "",
          repo: m[2] ?? "",
          workflow: decodeURIComponent(m[3] ?? ""),
          ref: String(b.ref ?? ""),
          inputs: (b.inputs ?? {}) as Record<string, string>,
        };
        state.dispatches.push(d);
        state.onDispatch?.(d);
        return json(204, undefined);
      },
    ],
    [
      "POST",
      /^\/app\/installations\/\d+\/access_tokens$/,
      () => {
        const token = `ghs_${randomBytes(18).toString("hex")}`;
        state.tokens.push(token);
        const example = openApiExample(
          "POST",
          "/app/installations/{installation_id}/access_tokens",
          201,
        );
        return json(201, {
          ...example,
          token,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        });
      },
    ],
    [
      "POST",
      /^\/graphql$/,
      (_m, _u, b) => {
        state.graphql.push({ query: String(b.query ?? ""), variables: b.variables });
        return json(200, {
          data: {
            disablePullRequestAutoMerge: { pullRequest: { id: "PR_x", autoMergeRequest: null } },
          },
        });
      },
    ],
    [
      "GET",
      /^\/repos\/[^/]+\/[^/]+\/collaborators\/([^/]+)\/permission$/,
      (m) => {
        const perm = state.permissions.get(decodeURIComponent(m[1] ?? ""));
        if (!perm) return notFound;
        const example = openApiExample(
          "GET",
          "/repos/{owner}/{repo}/collaborators/{username}/permission",
        );
        const legacy = perm === "maintain" ? "write" : perm === "triage" ? "read" : perm;
        return json(200, {
          ...example,
          permission: legacy,
          role_name: perm,
          user: { ...(example.user as Json), role_name: perm },
        });
      },
    ],
    [
      "GET",
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)$/,
      (m) => {
        const n = Number(m[1]);
        const found = state.issues.get(n);
        if (!found) return notFound;
        const example = openApiExample("GET", "/repos/{owner}/{repo}/issues/{issue_number}");
        const { pull_request: _pr, ...rest } = example;
        return json(200, {
          ...rest,
          number: n,
          title: found.title,
          body: found.body,
          ...(found.isPullRequest ? { pull_request: _pr } : {}),
        });
      },
    ],
    [
      "GET",
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/,
      (m) => json(200, state.commentsOn(Number(m[1])).map(commentJson)),
    ],
    [
      "POST",
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/,
      (m, _u, b) => {
        const c: FakeComment = {
          id: nextId++,
          issue: Number(m[1]),
          body: String(b.body ?? ""),
          user: { login: botLogin, type: "Bot" },
          edits: 0,
        };
        state.comments.push(c);
        return json(201, commentJson(c));
      },
    ],
    [
      "PATCH",
      /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/,
      (m, _u, b) => {
        const c = state.comments.find((x) => x.id === Number(m[1]));
        if (!c) return notFound;
        c.body = String(b.body ?? "");
        c.edits++;
        return json(200, commentJson(c));
      },
    ],
    [
      "POST",
      /^\/repos\/[^/]+\/[^/]+\/check-runs$/,
      (_m, _u, b) => {
        const c: FakeCheckRun = {
          id: nextId++,
          name: String(b.name),
          headSha: String(b.head_sha),
          externalId: String(b.external_id ?? ""),
          status: "queued",
          conclusion: null,
          title: null,
          summary: null,
          annotations: 0,
          history: [],
        };
        applyCheck(c, b);
        state.checkRuns.push(c);
        return json(201, checkJson(c));
      },
    ],
    [
      "PATCH",
      /^\/repos\/[^/]+\/[^/]+\/check-runs\/(\d+)$/,
      (m, _u, b) => {
        const c = state.checkRuns.find((x) => x.id === Number(m[1]));
        if (!c) return notFound;
        applyCheck(c, b);
        return json(200, checkJson(c));
      },
    ],
    [
      "GET",
      /^\/repos\/[^/]+\/[^/]+\/commits\/([^/]+)\/check-runs$/,
      (m, url) => {
        const name = url.searchParams.get("check_name");
        const runs = state
          .checksFor(decodeURIComponent(m[1] ?? ""))
          .filter((c) => !name || c.name === name);
        return json(200, { total_count: runs.length, check_runs: runs.map(checkJson) });
      },
    ],
    [
      "GET",
      /^\/repos\/[^/]+\/[^/]+\/pulls$/,
      (_m, url) => {
        const head = (url.searchParams.get("head") ?? "").split(":").pop();
        const example = (
          openApiExample("GET", "/repos/{owner}/{repo}/pulls") as unknown as Json[]
        )[0] as Json;
        return json(
          200,
          state.pulls
            .filter((x) => x.head === head)
            .map((x) => ({
              ...example,
              requested_teams: [],
              number: x.number,
              node_id: x.nodeId,
              draft: x.draft,
              html_url: `https://github.example/pull/${x.number}`,
            })),
        );
      },
    ],
    [
      "POST",
      /^\/repos\/[^/]+\/[^/]+\/pulls$/,
      (_m, _u, b) => {
        const pr: FakePull = {
          number: 100 + state.pulls.length,
          nodeId: `PR_node${state.pulls.length}`,
          head: String(b.head),
          base: String(b.base),
          title: String(b.title),
          body: String(b.body),
          draft: b.draft === true,
        };
        state.pulls.push(pr);
        return json(201, pullJson(pr));
      },
    ],
    [
      "PATCH",
      /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/,
      (m, _u, b) => {
        const pr = state.pulls.find((x) => x.number === Number(m[1]));
        if (!pr) return notFound;
        if (typeof b.title === "string") pr.title = b.title;
        if (typeof b.body === "string") pr.body = b.body;
        return json(200, pullJson(pr));
      },
    ],
  ];

  function handle(method: string, path: string, body: unknown): { status: number; body: unknown } {
    const url = new URL(path, "http://x");
    for (const [m, re, fn] of routes) {
      if (m !== method) continue;
      const match = re.exec(url.pathname);
      if (match) return fn(match, url, (body ?? {}) as Json);
    }
    return notFound;
  }

  return state;
}
