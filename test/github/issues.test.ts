import { describe, expect, it } from "vitest";
import { openApiExample } from "../harness/openapi-check.js";
import { notFound, OWNER, REPO, useFakeGitHub } from "./github-fakes.js";

const setup = useFakeGitHub();
const repo = { owner: OWNER, repo: REPO };
const route = `/repos/${OWNER}/${REPO}/issues/{issue_number}`;

function issue(over: Record<string, unknown>) {
  const { pull_request: _pr, ...base } = openApiExample(
    "GET",
    "/repos/{owner}/{repo}/issues/{issue_number}",
  );
  return { ...base, ...over };
}

describe("getIssue", () => {
  it("an issue: its number, title and text", async () => {
    const { gh, port } = setup();
    gh.on("GET", route, {
      status: 200,
      body: issue({ number: 31, title: "Greet louder", body: "with a !" }),
    });
    expect(await port.getIssue({ ...repo, issueNumber: 31 })).toEqual({
      number: 31,
      title: "Greet louder",
      body: "with a !",
      isPullRequest: false,
    });
    expect(gh.requests[0]?.pathname).toBe(`/repos/${OWNER}/${REPO}/issues/31`);
  });

  it("a pull request's number says so; an issue without text has an empty body", async () => {
    const { gh, port } = setup();
    const pr = {
      url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/12`,
      html_url: `https://github.com/${OWNER}/${REPO}/pull/12`,
      diff_url: `https://github.com/${OWNER}/${REPO}/pull/12.diff`,
      patch_url: `https://github.com/${OWNER}/${REPO}/pull/12.patch`,
    };
    gh.on("GET", route, {
      status: 200,
      body: issue({ number: 12, body: null, pull_request: pr }),
    });
    expect(await port.getIssue({ ...repo, issueNumber: 12 })).toMatchObject({
      body: "",
      isPullRequest: true,
    });
  });

  it("no such issue (404) or a deleted one (410): null", async () => {
    const { gh, port } = setup();
    gh.on("GET", route, notFound);
    expect(await port.getIssue({ ...repo, issueNumber: 404 })).toBeNull();
    gh.on("GET", route, { status: 410, body: { message: "This issue was deleted" } });
    expect(await port.getIssue({ ...repo, issueNumber: 410 })).toBeNull();
  });

  it("anything else is a typed error: the caller says what failed", async () => {
    const { gh, port } = setup();
    gh.on("GET", route, { status: 403, body: { message: "Resource not accessible" } });
    await expect(port.getIssue({ ...repo, issueNumber: 5 })).rejects.toMatchObject({
      name: "GitHubError",
      operation: "getIssue",
      status: 403,
    });
  });
});
