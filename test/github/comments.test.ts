import { describe, expect, it } from "vitest";
import { runMarker } from "../../src/github/comments.js";
import { memoryCommentIds } from "../../src/github/context.js";
import { GitHubError } from "../../src/github/errors.js";
import { comment, OWNER, REPO, SHORT_TIMEOUT_MS, sentBody, useFakeGitHub } from "./github-fakes.js";

const setup = useFakeGitHub();
const repo = { owner: OWNER, repo: REPO };
const list = `/repos/${OWNER}/${REPO}/issues/7/comments`;
const edit = (id: number) => `/repos/${OWNER}/${REPO}/issues/comments/${id}`;
const marker = "<!-- forgechain:run:run-1 -->";
const upsert = { ...repo, issueNumber: 7, runId: "run-1" };

describe("upsertRunComment", () => {
  it("posts one comment per run with the marker first, then edits it in place", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [] });
    gh.on("POST", list, (req) => ({
      status: 201,
      body: comment(100, String((req.body as { body: string }).body)),
    }));
    gh.on("PATCH", edit(100), { status: 200, body: comment(100, "x") }, { times: 2 });
    expect(await port.upsertRunComment({ ...upsert, body: "architect: running" })).toEqual({
      commentId: 100,
      created: true,
    });
    await port.upsertRunComment({ ...upsert, body: "architect: PASS" });
    await port.upsertRunComment({ ...upsert, body: "builder: running" });
    expect(gh.lines()).toEqual([
      `GET ${list}`,
      `POST ${list}`,
      `PATCH ${edit(100)}`,
      `PATCH ${edit(100)}`,
    ]);
    expect(gh.requests[1]?.body).toEqual({ body: `${marker}\narchitect: running` });
    expect(gh.requests[3]?.body).toEqual({ body: `${marker}\nbuilder: running` });
  });

  it("after a restart, finds its comment by the marker (across pages) and edits it", async () => {
    const { gh, newPort } = setup();
    const port = newPort({ commentIds: memoryCommentIds() });
    gh.on(
      "GET",
      list,
      (req) =>
        req.query.page === "2"
          ? { status: 200, body: [comment(300, `${marker}\nold state`)] }
          : {
              status: 200,
              body: [comment(1, "hello", { login: "octocat", type: "User" })],
              headers: { link: `<https://api.github.com${list}?per_page=100&page=2>; rel="next"` },
            },
      { times: 2 },
    );
    gh.on("PATCH", edit(300), { status: 200, body: comment(300, "x") });
    expect(await port.upsertRunComment({ ...upsert, body: "new state" })).toEqual({
      commentId: 300,
      created: false,
    });
    expect(gh.lines()).toEqual([`GET ${list}`, `GET ${list}`, `PATCH ${edit(300)}`]);
  });

  it("ignores the marker in someone else's comment (anyone can paste it)", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, {
      status: 200,
      body: [
        comment(5, `${marker}\nfake`, { login: "mallory", type: "User" }),
        comment(6, `${marker}\nother bot`, { login: "other-app[bot]", type: "Bot" }),
      ],
    });
    gh.on("POST", list, { status: 201, body: comment(101, "x") });
    expect(await port.upsertRunComment({ ...upsert, body: "state" })).toEqual({
      commentId: 101,
      created: true,
    });
  });

  it("a PATCH that times out is reconciled: list, find the marker, edit — no second POST", async () => {
    const { gh, newPort } = setup();
    const port = newPort({ timeoutMs: SHORT_TIMEOUT_MS });
    gh.on("GET", list, { status: 200, body: [comment(100, `${marker}\nstale`)] });
    gh.on("PATCH", edit(100), { status: 200, body: comment(100, "x") }); // learns the id
    gh.on("PATCH", edit(100), { hang: true });
    gh.on("GET", list, { status: 200, body: [comment(100, `${marker}\nstill stale`)] });
    gh.on("PATCH", edit(100), { status: 200, body: comment(100, "x") });
    await port.upsertRunComment({ ...upsert, body: "one" });
    expect(await port.upsertRunComment({ ...upsert, body: "two" })).toEqual({
      commentId: 100,
      created: false,
    });
    expect(gh.lines()).toEqual([
      `GET ${list}`,
      `PATCH ${edit(100)}`,
      `PATCH ${edit(100)}`,
      `GET ${list}`,
      `PATCH ${edit(100)}`,
    ]);
    expect(gh.lines().filter((l) => l.startsWith("POST"))).toEqual([]);
    expect(gh.requests[4]?.body).toEqual({ body: `${marker}\ntwo` });
  });

  it("an edit that landed although its answer was lost is not sent again", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [comment(100, `${marker}\nold`)] });
    gh.on("PATCH", edit(100), { status: 502, body: { message: "Bad Gateway" } });
    gh.on("GET", list, { status: 200, body: [comment(100, `${marker}\nnew`)] });
    expect(await port.upsertRunComment({ ...upsert, body: "new" })).toEqual({
      commentId: 100,
      created: false,
    });
    expect(gh.lines()).toEqual([`GET ${list}`, `PATCH ${edit(100)}`, `GET ${list}`]);
  });

  it("a POST whose answer was lost is found by its marker, not posted twice", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [] });
    gh.on("POST", list, { networkError: "ECONNRESET" });
    gh.on("GET", list, { status: 200, body: [comment(102, `${marker}\nstate`)] });
    expect(await port.upsertRunComment({ ...upsert, body: "state" })).toEqual({
      commentId: 102,
      created: true,
    });
    expect(gh.lines()).toEqual([`GET ${list}`, `POST ${list}`, `GET ${list}`]);
  });

  it("posts again only after the listing shows the first POST did not land", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [] }, { times: 2 });
    gh.on("POST", list, { status: 500, body: { message: "Server Error" } });
    gh.on("POST", list, { status: 201, body: comment(103, "x") });
    expect(await port.upsertRunComment({ ...upsert, body: "state" })).toEqual({
      commentId: 103,
      created: true,
    });
    // One POST each side of the listing: the retry plugin did not re-send the first blindly.
    expect(gh.lines()).toEqual([`GET ${list}`, `POST ${list}`, `GET ${list}`, `POST ${list}`]);
  });

  it("a comment deleted by someone is posted anew", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [comment(100, `${marker}\nold`)] });
    gh.on("PATCH", edit(100), { status: 200, body: comment(100, "x") });
    gh.on("PATCH", edit(100), { status: 404, body: { message: "Not Found" } });
    gh.on("POST", list, { status: 201, body: comment(104, "x") });
    await port.upsertRunComment({ ...upsert, body: "a" });
    expect(await port.upsertRunComment({ ...upsert, body: "b" })).toEqual({
      commentId: 104,
      created: true,
    });
  });

  it("a refused write is a typed error and nothing is reposted", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [] });
    gh.on("POST", list, {
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const error = await port.upsertRunComment({ ...upsert, body: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({
      operation: "upsertRunComment",
      status: 403,
      outcomeUnknown: false,
    });
    expect(gh.requests).toHaveLength(2);
  });

  it("keeps a huge body under GitHub's limit with the marker and a note", async () => {
    const { gh, port } = setup();
    gh.on("GET", list, { status: 200, body: [] });
    gh.on("POST", list, { status: 201, body: comment(105, "x") });
    await port.upsertRunComment({ ...upsert, body: "x".repeat(100_000) });
    const sent = sentBody<{ body: string }>(gh, 1).body;
    expect(sent.startsWith(`${marker}\n`)).toBe(true);
    expect(Buffer.byteLength(sent)).toBeLessThanOrEqual(65_536);
    expect(sent).toMatch(/forgechain: comment truncated/);
  });

  it("refuses a run id that could break out of the marker, before any request", async () => {
    const { port } = setup();
    await expect(
      port.upsertRunComment({ ...upsert, runId: "x --> <b>", body: "b" }),
    ).rejects.toThrow(/not a run id/);
    expect(runMarker("abc-123")).toBe("<!-- forgechain:run:abc-123 -->");
  });
});

describe("postReply", () => {
  it("posts a reply once; an unanswered post is an error that says the outcome is unknown", async () => {
    const { gh, port } = setup();
    gh.on("POST", list, { status: 201, body: comment(200, "refused") });
    expect(await port.postReply({ ...repo, issueNumber: 7, body: "refused" })).toEqual({
      commentId: 200,
    });
    gh.on("POST", list, { status: 502, body: { message: "Bad Gateway" } });
    await expect(port.postReply({ ...repo, issueNumber: 7, body: "again" })).rejects.toMatchObject({
      operation: "postReply",
      status: 502,
      outcomeUnknown: true,
    });
    expect(gh.requests).toHaveLength(2);
  });

  it("a rate-limited post (not applied by GitHub) is retried by the throttling plugin", async () => {
    const { gh, port } = setup();
    gh.on("POST", list, {
      status: 403,
      body: { message: "API rate limit exceeded for installation ID 1." },
      headers: {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) - 5),
      },
    });
    gh.on("POST", list, { status: 201, body: comment(201, "ok") });
    expect(await port.postReply({ ...repo, issueNumber: 7, body: "ok" })).toEqual({
      commentId: 201,
    });
    expect(gh.requests).toHaveLength(2);
  });
});
