/**
 * Fake GitHub answers for the port tests, built from the examples in GitHub's own OpenAPI
 * description (so they pass the response-schema check) with the fields a case needs changed.
 */
import { afterEach, beforeAll } from "vitest";
import { createGitHubPort, type GitHubPortOptions } from "../../src/github/create-port.js";
import {
  createTestOctokit,
  type GitHubMock,
  type MockGitHubOptions,
  mockGitHub,
  openApiExample,
  warmUpOpenApi,
} from "../harness/openapi-check.js";

export const OWNER = "octo-org";
export const REPO = "widgets";
export const HEAD = "0123456789abcdef0123456789abcdef01234567";
export const BOT = "forgechain[bot]";

type Json = Record<string, unknown>;

export function checkRun(over: Json = {}): Json {
  return { ...openApiExample("POST", "/repos/{owner}/{repo}/check-runs"), ...over };
}

export function checkRunList(runs: Json[]): Json {
  return { total_count: runs.length, check_runs: runs };
}

export function comment(
  id: number,
  body: string,
  user: { login: string; type: string } = { login: BOT, type: "Bot" },
): Json {
  const base = openApiExample("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments");
  return { ...base, id, body, user: { ...(base.user as Json), ...user } };
}

/** GitHub's own example carries a team without `type`, which its schema requires. */
export function pull(over: Json = {}): Json {
  return { ...openApiExample("POST", "/repos/{owner}/{repo}/pulls"), requested_teams: [], ...over };
}

export function pullListItem(over: Json = {}): Json {
  const example = (
    openApiExample("GET", "/repos/{owner}/{repo}/pulls") as unknown as Json[]
  )[0] as Json;
  return { ...example, requested_teams: [], ...over };
}

export function fileContent(path: string, content: string, sha: string): Json {
  return {
    ...openApiExample("GET", "/repos/{owner}/{repo}/contents/{path}"),
    path,
    name: path.split("/").pop(),
    sha,
    content: Buffer.from(content, "utf8").toString("base64"),
  };
}

export function fileCommit(commitSha: string): Json {
  const example = openApiExample("PUT", "/repos/{owner}/{repo}/contents/{path}", 201);
  return { ...example, commit: { ...(example.commit as Json), sha: commitSha } };
}

export function permission(permission: string, roleName: string | undefined): Json {
  const example = openApiExample(
    "GET",
    "/repos/{owner}/{repo}/collaborators/{username}/permission",
  );
  const user = { ...(example.user as Json), role_name: roleName ?? permission };
  const body: Json = { ...example, permission, user };
  if (roleName === undefined) delete body.role_name;
  else body.role_name = roleName;
  return body;
}

/** The JSON body of the index-th recorded request (fails the test when there is none). */
export function sentBody<T = Record<string, unknown>>(gh: GitHubMock, index: number): T {
  const request = gh.requests[index];
  if (!request) throw new Error(`no request #${index}; saw: ${gh.lines().join(", ")}`);
  return request.body as T;
}

/** For the cases that wait for the client timeout on a hanging request. */
export const SHORT_TIMEOUT_MS = 1500;

export const notFound = {
  status: 404,
  body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" },
};

/** A fake GitHub and a port over a Probot-style Octokit, cleaned up and verified after each test. */
export function useFakeGitHub() {
  let gh: GitHubMock | undefined;
  beforeAll(() => warmUpOpenApi(["api.github.com", "ghes-3.19"]));
  afterEach(() => {
    const current = gh;
    gh = undefined;
    try {
      current?.verify();
    } finally {
      current?.close();
    }
  });
  return (options: MockGitHubOptions & Partial<GitHubPortOptions> = {}) => {
    gh = mockGitHub(options);
    const octokit = createTestOctokit(options.baseUrl ? { baseUrl: options.baseUrl } : {});
    const newPort = (more: Partial<GitHubPortOptions> = {}) =>
      createGitHubPort({
        octokit,
        // Generous: a loaded CI machine must never turn an ordinary answer into a timeout.
        // The timeout cases pass their own short timeout to newPort().
        timeoutMs: 30_000,
        botLogin: BOT,
        now: () => new Date("2026-12-02T12:00:00Z"),
        ...more,
      });
    return { gh, port: newPort(), newPort };
  };
}
