// The Action's GitHub client: a plain token, the API host the runner names (a GitHub Enterprise
// Server path here), the same port as the App's — a loopback server at the HTTP boundary.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenInstallations } from "../../src/action/token-installations.js";
import { tokenPort } from "../../src/github/token-client.js";

const TOKEN = "ghs_forge_test_not_a_real_token_000000000";
let server: Server;
let base: string;
const seen: Array<Pick<IncomingMessage, "url" | "method"> & { authorization?: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url, method: req.method, authorization: req.headers.authorization });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ permission: "write", role_name: "maintain", user: { login: "alice" } }),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v3`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("tokenPort", () => {
  it("asks the runner's API host with the token, and answers like the App's port", async () => {
    const port = tokenPort({ token: TOKEN, baseUrl: base });
    expect(await port.getPermission({ owner: "octo", repo: "demo", username: "alice" })).toBe(
      "maintain",
    );
    expect(seen).toEqual([
      {
        method: "GET",
        url: "/api/v3/repos/octo/demo/collaborators/alice/permission",
        authorization: `token ${TOKEN}`,
      },
    ]);
  });
});

describe("the GraphQL endpoint the runner names", () => {
  it("turning auto-merge off goes to GITHUB_GRAPHQL_URL, with the token", async () => {
    // Another path than the one Octokit would derive from the REST base (/api/graphql).
    const graphqlUrl = base.replace("/api/v3", "/custom/graphql");
    const port = tokenPort({ token: TOKEN, baseUrl: base, graphqlUrl });
    seen.length = 0;
    // The loopback answer holds no auto-merge state: the port says it may still be on.
    await port.disableAutoMerge({ pullRequestNodeId: "PR_kwDO" }).catch(() => {});
    expect(seen.length).toBeGreaterThan(0);
    for (const q of seen) {
      expect(q).toEqual({
        method: "POST",
        url: "/custom/graphql",
        authorization: `token ${TOKEN}`,
      });
    }
  });

  it("without it, the GitHub Enterprise Server path Octokit derives from the REST base", async () => {
    const port = tokenPort({ token: TOKEN, baseUrl: base });
    seen.length = 0;
    await port.disableAutoMerge({ pullRequestNodeId: "PR_kwDO" }).catch(() => {});
    expect(seen[0]?.url).toBe("/api/graphql");
  });
});

describe("tokenInstallations", () => {
  it("one port and the one token for whatever installation the handlers name", async () => {
    const installations = tokenInstallations({ token: TOKEN, apiUrl: base });
    expect(await installations.port(0)).toBe(await installations.port(42));
    expect(await installations.token(0)).toBe(TOKEN);
    seen.length = 0;
    await (await installations.port(0)).getPermission({
      owner: "octo",
      repo: "demo",
      username: "bob",
    });
    expect(seen[0]?.authorization).toBe(`token ${TOKEN}`);
  });
});
