import { describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/errors.js";
import { OWNER, pull, pullListItem, REPO, sentBody, useFakeGitHub } from "./github-fakes.js";

const setup = useFakeGitHub();
const repo = { owner: OWNER, repo: REPO };
const pulls = `/repos/${OWNER}/${REPO}/pulls`;
const input = {
  ...repo,
  head: "forge/7-add-widgets",
  base: "main",
  title: "Add widgets",
  body: "Plan…",
};

describe("openDraftPullRequest", () => {
  it("opens a draft PR from the branch when none is open", async () => {
    const { gh, port } = setup();
    gh.on("GET", pulls, { status: 200, body: [] });
    gh.on("POST", pulls, {
      status: 201,
      body: pull({
        number: 42,
        node_id: "PR_kw42",
        html_url: "https://github.com/o/r/pull/42",
        draft: true,
      }),
    });
    expect(await port.openDraftPullRequest(input)).toEqual({
      number: 42,
      nodeId: "PR_kw42",
      url: "https://github.com/o/r/pull/42",
      draft: true,
      created: true,
    });
    expect(gh.requests[0]?.query).toEqual({
      head: `${OWNER}:forge/7-add-widgets`,
      state: "open",
      per_page: "1",
    });
    expect(gh.requests[1]?.body).toEqual({
      head: "forge/7-add-widgets",
      base: "main",
      title: "Add widgets",
      body: "Plan…",
      draft: true,
    });
  });

  it("returns the open PR for the branch instead of opening another", async () => {
    const { gh, port } = setup();
    gh.on("GET", pulls, {
      status: 200,
      body: [pullListItem({ number: 41, node_id: "PR_41", draft: true })],
    });
    expect(await port.openDraftPullRequest(input)).toMatchObject({
      number: 41,
      nodeId: "PR_41",
      created: false,
    });
    expect(gh.requests).toHaveLength(1);
  });

  it("a create that races another (422 already exists) returns the PR that won", async () => {
    const { gh, port } = setup();
    gh.on("GET", pulls, { status: 200, body: [] });
    gh.on("POST", pulls, {
      status: 422,
      body: {
        message:
          "Validation Failed: A pull request already exists for octo-org:forge/7-add-widgets.",
      },
    });
    gh.on("GET", pulls, { status: 200, body: [pullListItem({ number: 43, node_id: "PR_43" })] });
    expect(await port.openDraftPullRequest(input)).toMatchObject({ number: 43, created: false });
  });

  it("falls back to an ordinary PR where drafts are not available, and says so", async () => {
    const { gh, port } = setup();
    gh.on("GET", pulls, { status: 200, body: [] });
    gh.on("POST", pulls, {
      status: 422,
      body: {
        message: "Validation Failed: Draft pull requests are not supported in this repository.",
      },
    });
    gh.on("POST", pulls, { status: 201, body: pull({ number: 44, draft: false }) });
    expect(await port.openDraftPullRequest(input)).toMatchObject({
      number: 44,
      draft: false,
      created: true,
    });
    expect(sentBody<{ draft: boolean }>(gh, 2).draft).toBe(false);
  });
});

describe("updatePullRequest", () => {
  it("sets the title and body of the PR (a later run's account), checked against the description", async () => {
    const { gh, port } = setup();
    gh.on("PATCH", `${pulls}/41`, { status: 200, body: pull({ number: 41 }) });
    await port.updatePullRequest({ ...repo, number: 41, title: "forge: t", body: "run 2" });
    expect(gh.requests[0]?.check.ok).toBe(true);
    expect(sentBody(gh, 0)).toEqual({ title: "forge: t", body: "run 2" });
  });

  it("a refusal is a GitHubError naming the operation", async () => {
    const { gh, port } = setup();
    gh.on("PATCH", `${pulls}/41`, { status: 403, body: { message: "Resource not accessible" } });
    const error = await port
      .updatePullRequest({ ...repo, number: 41, title: "t", body: "b" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(String(error)).toContain("updatePullRequest");
  });
});

describe("disableAutoMerge", () => {
  it("sends disablePullRequestAutoMerge (checked against GitHub's GraphQL schema)", async () => {
    const { gh, port } = setup();
    gh.on("POST", "/graphql", {
      status: 200,
      body: {
        data: {
          disablePullRequestAutoMerge: { pullRequest: { id: "PR_42", autoMergeRequest: null } },
        },
      },
    });
    await port.disableAutoMerge({ pullRequestNodeId: "PR_42" });
    expect(gh.requests[0]?.check).toEqual({
      ok: true,
      match: {
        kind: "graphql",
        operationName: "DisableAutoMerge",
        fields: ["disablePullRequestAutoMerge"],
      },
    });
    expect(sentBody<{ variables: unknown }>(gh, 0).variables).toEqual({ id: "PR_42" });
  });

  it("an error when auto-merge was not on is fine once the PR shows it off; still on is a failure", async () => {
    const { gh, port } = setup();
    const refused = {
      status: 200,
      body: {
        data: { disablePullRequestAutoMerge: null },
        errors: [{ message: "Pull request is not in the correct state" }],
      },
    };
    gh.on("POST", "/graphql", refused);
    gh.on("POST", "/graphql", {
      status: 200,
      body: { data: { node: { id: "PR_42", autoMergeRequest: null } } },
    });
    await port.disableAutoMerge({ pullRequestNodeId: "PR_42" });

    gh.on("POST", "/graphql", refused);
    gh.on("POST", "/graphql", {
      status: 200,
      body: {
        data: { node: { id: "PR_42", autoMergeRequest: { enabledAt: "2026-12-02T11:00:00Z" } } },
      },
    });
    const error = await port
      .disableAutoMerge({ pullRequestNodeId: "PR_42" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(String(error)).toMatch(/auto-merge is still on/);
    expect(
      gh.requests.map((r) =>
        r.check.ok && r.check.match.kind === "graphql" ? r.check.match.operationName : "?",
      ),
    ).toEqual(["DisableAutoMerge", "AutoMergeState", "DisableAutoMerge", "AutoMergeState"]);
  });

  it("on GitHub Enterprise Server goes to /api/graphql", async () => {
    const { gh, port } = setup({ baseUrl: "http://127.0.0.1:3999/api/v3" });
    gh.on("POST", "/graphql", {
      status: 200,
      body: {
        data: {
          disablePullRequestAutoMerge: { pullRequest: { id: "PR_1", autoMergeRequest: null } },
        },
      },
    });
    await port.disableAutoMerge({ pullRequestNodeId: "PR_1" });
    expect(gh.requests[0]?.path).toBe("/api/graphql");
    expect(gh.requests[0]?.check.ok).toBe(true);
  });
});
