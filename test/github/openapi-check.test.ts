import { afterEach, describe, expect, it } from "vitest";
import {
  assertMatchesOpenApi,
  checkRequest,
  checkResponse,
  createTestOctokit,
  type GitHubMock,
  mockGitHub,
  openApiExample,
} from "../harness/openapi-check.js";

const createCheck = {
  method: "POST",
  path: "/repos/o/r/check-runs",
  body: {
    name: "forge/reviewer",
    head_sha: "a".repeat(40),
    status: "queued",
    external_id: "run-1",
  },
};

function problems(req: Parameters<typeof checkRequest>[0]): string {
  const result = checkRequest(req);
  return result.ok ? "" : result.problems.join("\n");
}

describe("assertMatchesOpenApi (REST)", () => {
  it("matches a correct request to its operation", () => {
    expect(assertMatchesOpenApi(createCheck)).toMatchObject({
      kind: "rest",
      operationId: "checks/create",
      template: "/repos/{owner}/{repo}/check-runs",
      pathParams: { owner: "o", repo: "r" },
    });
  });

  it("fails a wrong path, a wrong method and a wrong API prefix", () => {
    expect(problems({ ...createCheck, path: "/repos/o/r/check-run" })).toMatch(/no operation/);
    expect(problems({ ...createCheck, method: "PUT" })).toMatch(/no PUT operation.*POST/);
    expect(problems({ ...createCheck, path: "/api/v4/repos/o/r/check-runs" })).toMatch(
      /no operation/,
    );
  });

  it("fails a body with a missing, misspelt, mistyped or out-of-enum field", () => {
    const { head_sha: _, ...noSha } = createCheck.body;
    expect(problems({ ...createCheck, body: noSha })).toMatch(/head_sha/);
    expect(
      problems({ ...createCheck, body: { ...createCheck.body, conclsion: "success" } }),
    ).toMatch(/additional properties \(conclsion\)/);
    expect(problems({ ...createCheck, body: { ...createCheck.body, external_id: 7 } })).toMatch(
      /external_id must be string/,
    );
    expect(problems({ ...createCheck, body: { ...createCheck.body, status: "done" } })).toMatch(
      /status must be equal to one of the allowed values/,
    );
    expect(problems({ ...createCheck, body: undefined })).toMatch(/required request body/);
    expect(problems({ method: "GET", path: "/repos/o/r", body: { x: 1 } })).toMatch(
      /takes no request body/,
    );
  });

  it("fails a check run update whose completion lacks a conclusion, and 51 annotations", () => {
    const path = "/repos/o/r/check-runs/5";
    expect(problems({ method: "PATCH", path, body: { status: "completed" } })).not.toBe("");
    const annotation = {
      path: "a.ts",
      start_line: 1,
      end_line: 1,
      annotation_level: "warning",
      message: "m",
    };
    const output = (n: number) => ({
      title: "t",
      summary: "s",
      annotations: Array.from({ length: n }, () => annotation),
    });
    expect(problems({ method: "PATCH", path, body: { output: output(50) } })).toBe("");
    expect(problems({ method: "PATCH", path, body: { output: output(51) } })).toMatch(
      /must NOT have more than 50 items/,
    );
    expect(problems({ method: "PATCH", path: "/repos/o/r/check-runs/x", body: {} })).toMatch(
      /path parameter check_run_id must be integer/,
    );
  });

  it("checks query parameters: unknown names and wrong types fail", () => {
    const list = "/repos/o/r/issues/1/comments";
    expect(problems({ method: "GET", path: `${list}?per_page=100&page=2` })).toBe("");
    expect(problems({ method: "GET", path: `${list}?perpage=100` })).toMatch(
      /unknown query parameter "perpage"/,
    );
    expect(problems({ method: "GET", path: `${list}?per_page=many` })).toMatch(/per_page/);
  });

  it("takes multi-segment content paths, encoded or not", () => {
    const body = { message: "m", content: "eA==", branch: "forge/1-x" };
    for (const path of [
      "/repos/o/r/contents/.forge%2Frun-output-1.md",
      "/repos/o/r/contents/.forge/run-output-1.md",
    ]) {
      expect(assertMatchesOpenApi({ method: "PUT", path, body })).toMatchObject({
        operationId: "repos/create-or-update-file-contents",
        pathParams: { path: ".forge/run-output-1.md" },
      });
    }
  });

  it("checks GHES requests (under /api/v3) against the GHES description", () => {
    expect(
      assertMatchesOpenApi({ ...createCheck, path: "/api/v3/repos/o/r/check-runs" }),
    ).toMatchObject({ operationId: "checks/create" });
    expect(problems({ ...createCheck, path: "/api/v3/repos/o/r/check-runz" })).toMatch(
      /ghes-3\.19/,
    );
  });
});

describe("assertMatchesOpenApi (GraphQL)", () => {
  const query =
    "mutation($id: ID!) { disablePullRequestAutoMerge(input: {pullRequestId: $id}) { pullRequest { id } } }";

  it("accepts a valid mutation with its variables", () => {
    expect(
      assertMatchesOpenApi({
        method: "POST",
        path: "/graphql",
        body: { query, variables: { id: "PR_1" } },
      }),
    ).toEqual({ kind: "graphql", operationName: null, fields: ["disablePullRequestAutoMerge"] });
  });

  it("fails an unknown field, a missing or mistyped variable, and a syntax error", () => {
    expect(
      problems({
        method: "POST",
        path: "/graphql",
        body: { query: query.replace("disable", "switchOff"), variables: { id: "x" } },
      }),
    ).toMatch(/Cannot query field "switchOffPullRequestAutoMerge"/);
    expect(problems({ method: "POST", path: "/graphql", body: { query, variables: {} } })).toMatch(
      /Variable "\$id" of required type "ID!" was not provided/,
    );
    expect(
      problems({ method: "POST", path: "/graphql", body: { query, variables: { id: { a: 1 } } } }),
    ).toMatch(/\$id/);
    expect(problems({ method: "POST", path: "/graphql", body: { query: "mutation {" } })).toMatch(
      /syntax/i,
    );
    expect(problems({ method: "GET", path: "/graphql" })).toMatch(/POST/);
  });
});

describe("responses and examples", () => {
  it("gives documented examples and checks fake answers against the response schema", () => {
    const example = openApiExample("POST", "/repos/{owner}/{repo}/check-runs");
    expect(example).toHaveProperty("id");
    expect(checkResponse(createCheck, 201, example)).toEqual([]);
    const { head_sha: _, ...broken } = example;
    expect(checkResponse(createCheck, 201, broken).join("\n")).toMatch(/head_sha/);
    expect(checkResponse(createCheck, 299, example).join("\n")).toMatch(/does not document a 299/);
  });
});

describe("mockGitHub", () => {
  let gh: GitHubMock | undefined;
  afterEach(() => gh?.close());

  it("records, checks and answers requests; verify fails on a bad request or a missing route", async () => {
    gh = mockGitHub();
    const octokit = createTestOctokit();
    gh.on("POST", "/repos/{owner}/{repo}/check-runs", {
      status: 201,
      body: openApiExample("POST", "/repos/{owner}/{repo}/check-runs"),
    });
    const res = await octokit.rest.checks.create({
      owner: "o",
      repo: "r",
      name: "forge/reviewer",
      head_sha: "a".repeat(40),
    });
    expect(res.status).toBe(201);
    expect(gh.lines()).toEqual(["POST /repos/o/r/check-runs"]);
    expect(gh.requests[0]?.body).toEqual({ name: "forge/reviewer", head_sha: "a".repeat(40) });
    gh.verify();

    // A request the API does not have: answered 422 like GitHub would, and verify fails.
    gh.on("PATCH", /.*/, { status: 200, body: {} });
    await expect(
      octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{id}", {
        owner: "o",
        repo: "r",
        id: 1,
        colour: "red",
      }),
    ).rejects.toMatchObject({ status: 422 });
    expect(() => gh?.verify()).toThrow(/additional properties \(colour\)/);
  });

  it("verify fails on a request with no route and on a route never used", async () => {
    gh = mockGitHub();
    const octokit = createTestOctokit();
    gh.on("GET", "/repos/o/r", { status: 200, body: {} }, { optional: true });
    await expect(
      octokit.request("GET /rate_limit", { request: { retries: 0 } }),
    ).rejects.toBeTruthy();
    expect(() => gh?.verify()).toThrow(/no route for GET https:\/\/api.github.com\/rate_limit/);
    gh.close();
    gh = mockGitHub();
    gh.on("GET", "/repos/o/r", { status: 200, body: {} });
    expect(() => gh?.verify()).toThrow(/route never used/);
  });

  it("simulates a timeout: the client gives up and the request is on record", async () => {
    gh = mockGitHub();
    const octokit = createTestOctokit();
    gh.on("PATCH", "/repos/o/r/issues/comments/1", { hang: true });
    await expect(
      octokit.rest.issues.updateComment({
        owner: "o",
        repo: "r",
        comment_id: 1,
        body: "x",
        request: { signal: AbortSignal.timeout(100), retries: 0 },
      }),
    ).rejects.toThrow(/abort|timeout/i);
    expect(gh.lines()).toEqual(["PATCH /repos/o/r/issues/comments/1"]);
    gh.verify();
  });
});
