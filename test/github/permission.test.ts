import { describe, expect, it } from "vitest";
import { isTrustedPermission } from "../../src/github/permission.js";
import type { Permission } from "../../src/github/port.js";
import { notFound, OWNER, permission, REPO, useFakeGitHub } from "./github-fakes.js";

const setup = useFakeGitHub();
const repo = { owner: OWNER, repo: REPO };
const route = `/repos/${OWNER}/${REPO}/collaborators/{username}/permission`;

describe("getPermission", () => {
  it.each([
    ["admin", "admin", "admin"],
    // The legacy field says write for maintain and read for triage: role_name is the truth.
    ["write", "maintain", "maintain"],
    ["read", "triage", "triage"],
    ["write", "write", "write"],
    ["read", "read", "read"],
    ["none", "none", "none"],
    // A custom role falls back to the base permission GitHub reports for it.
    ["write", "security-auditor", "write"],
    ["read", "docs-writer", "read"],
  ] as const)("permission %s, role_name %s → %s", async (legacy, roleName, expected) => {
    const { gh, port } = setup();
    gh.on("GET", route, { status: 200, body: permission(legacy, roleName) });
    expect(await port.getPermission({ ...repo, username: "octocat" })).toBe(expected);
    expect(gh.requests[0]?.pathname).toBe(
      `/repos/${OWNER}/${REPO}/collaborators/octocat/permission`,
    );
  });

  it("an answer without role_name (the schema requires it; be safe anyway) uses permission", async () => {
    const { gh, port } = setup({ validateResponses: false });
    gh.on("GET", route, { status: 200, body: permission("admin", undefined) });
    expect(await port.getPermission({ ...repo, username: "octocat" })).toBe("admin");
    // …and never trusts a permission it does not know.
    gh.on("GET", route, { status: 200, body: permission("superuser", undefined) });
    expect(await port.getPermission({ ...repo, username: "octocat" })).toBe("none");
  });

  it("a non-collaborator (404) has no permission", async () => {
    const { gh, port } = setup();
    gh.on("GET", route, notFound);
    expect(await port.getPermission({ ...repo, username: "stranger" })).toBe("none");
  });

  it("asks nothing for a bot or a malformed login", async () => {
    const { gh, port } = setup();
    for (const username of ["forgechain[bot]", "../admin", "", "a".repeat(40)]) {
      expect(await port.getPermission({ ...repo, username })).toBe("none");
    }
    expect(gh.requests).toHaveLength(0);
  });

  it("a server error is retried by the retry plugin, then a typed error (callers fail closed)", async () => {
    const { gh, port } = setup();
    gh.on("GET", route, { status: 500, body: { message: "Server Error" } }, { times: 4 });
    await expect(port.getPermission({ ...repo, username: "octocat" })).rejects.toMatchObject({
      name: "GitHubError",
      operation: "getPermission",
      status: 500,
    });
    // 1 + 3 retries: the plugin is on for reads (and off for the writes we reconcile).
    expect(gh.requests).toHaveLength(4);
  });
});

describe("isTrustedPermission", () => {
  it("trusts write, maintain and admin only", () => {
    const all: Permission[] = ["admin", "maintain", "write", "triage", "read", "none"];
    expect(all.filter(isTrustedPermission)).toEqual(["admin", "maintain", "write"]);
  });
});
