import { describe, expect, it } from "vitest";
import {
  fileCommit,
  fileContent,
  notFound,
  OWNER,
  REPO,
  SHORT_TIMEOUT_MS,
  sentBody,
  useFakeGitHub,
} from "./github-fakes.js";

const setup = useFakeGitHub();
const repo = { owner: OWNER, repo: REPO };
const path = ".forge/run-output-run-1.md";
const contents = `/repos/${OWNER}/${REPO}/contents/{path}`;
const input = {
  ...repo,
  branch: "forge/7-add-widgets",
  path,
  content: "# Run run-1\n\nPASS ✓\n",
  message: "forge: run output run-1",
};
const base64 = Buffer.from(input.content, "utf8").toString("base64");

describe("commitRunOutput", () => {
  it("creates the file on the branch when it is not there", async () => {
    const { gh, port } = setup();
    gh.on("GET", contents, notFound);
    gh.on("PUT", contents, { status: 201, body: fileCommit("c0ffee") });
    expect(await port.commitRunOutput(input)).toEqual({ commitSha: "c0ffee", changed: true });
    expect(gh.requests[0]?.query).toEqual({ ref: "forge/7-add-widgets" });
    expect(gh.requests[1]?.check).toMatchObject({ ok: true, match: { pathParams: { path } } });
    expect(gh.requests[1]?.body).toEqual({
      message: input.message,
      content: base64,
      branch: input.branch,
    });
  });

  it("updates with the blob sha when the file differs, and writes nothing when it is the same", async () => {
    const { gh, port } = setup();
    gh.on("GET", contents, { status: 200, body: fileContent(path, "old", "sha-old") });
    gh.on("PUT", contents, { status: 200, body: fileCommit("c1") });
    gh.on("GET", contents, { status: 200, body: fileContent(path, input.content, "sha-new") });
    expect(await port.commitRunOutput(input)).toEqual({ commitSha: "c1", changed: true });
    expect(sentBody<{ sha: string }>(gh, 1).sha).toBe("sha-old");
    expect(await port.commitRunOutput(input)).toEqual({ commitSha: null, changed: false });
    expect(gh.requests).toHaveLength(3);
  });

  it("a sha that moved (409) is read again and the write repeated with the new sha", async () => {
    const { gh, port } = setup();
    gh.on("GET", contents, { status: 200, body: fileContent(path, "old", "sha-1") });
    gh.on("PUT", contents, { status: 409, body: { message: "is at sha-2 but expected sha-1" } });
    gh.on("GET", contents, { status: 200, body: fileContent(path, "older", "sha-2") });
    gh.on("PUT", contents, { status: 200, body: fileCommit("c2") });
    expect(await port.commitRunOutput(input)).toEqual({ commitSha: "c2", changed: true });
    expect(sentBody<{ sha: string }>(gh, 3).sha).toBe("sha-2");
  });

  it("a write that timed out but landed is not repeated", async () => {
    const { gh, newPort } = setup();
    const port = newPort({ timeoutMs: SHORT_TIMEOUT_MS });
    gh.on("GET", contents, notFound);
    gh.on("PUT", contents, { hang: true });
    gh.on("GET", contents, { status: 200, body: fileContent(path, input.content, "sha-x") });
    expect(await port.commitRunOutput(input)).toEqual({ commitSha: null, changed: true });
    expect(gh.lines().filter((l) => l.startsWith("PUT"))).toHaveLength(1);
  });

  it("refuses paths that are absolute or climb out, before any request", async () => {
    const { port } = setup();
    for (const bad of ["/etc/passwd", "../x.md", ".forge/../../x", "a//b", "", "a\\b", "a\nb"]) {
      await expect(port.commitRunOutput({ ...input, path: bad })).rejects.toMatchObject({
        name: "GitHubError",
        operation: "commitRunOutput",
      });
    }
  });
});
