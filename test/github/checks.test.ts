import { describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/errors.js";
import type { Finding } from "../../src/github/port.js";
import type { Decision } from "../../src/roles/decision.js";
import {
  checkRun,
  checkRunList,
  HEAD,
  OWNER,
  REPO,
  SHORT_TIMEOUT_MS,
  useFakeGitHub,
} from "./github-fakes.js";

const setup = useFakeGitHub();
const repo = { owner: OWNER, repo: REPO };
const checksPath = `/repos/${OWNER}/${REPO}/check-runs`;
const pass: Decision = {
  role: "reviewer",
  verdict: "PASS",
  reasons: ["explicit PASS"],
  overridden: false,
};
const fail: Decision = {
  role: "reviewer",
  verdict: "FAIL",
  reasons: ["1 blocking finding"],
  overridden: true,
};

describe("createRoleCheck", () => {
  it("creates a queued forge/<role> check run with the run id as external_id", async () => {
    const { gh, port } = setup();
    gh.on("POST", checksPath, { status: 201, body: checkRun({ id: 11 }) });
    const id = await port.createRoleCheck({
      ...repo,
      headSha: HEAD,
      role: "reviewer",
      runId: "run-1",
    });
    expect(id).toBe(11);
    expect(gh.requests[0]?.body).toEqual({
      name: "forge/reviewer",
      head_sha: HEAD,
      status: "queued",
      external_id: "run-1",
    });
  });

  it("after a create that timed out, finds the check run by external_id instead of creating another", async () => {
    const { gh, newPort } = setup();
    const port = newPort({ timeoutMs: SHORT_TIMEOUT_MS });
    gh.on("POST", checksPath, { hang: true });
    gh.on("GET", `/repos/${OWNER}/${REPO}/commits/${HEAD}/check-runs`, {
      status: 200,
      body: checkRunList([
        checkRun({ id: 3, external_id: "older-run" }),
        checkRun({ id: 12, external_id: "run-1" }),
      ]),
    });
    const id = await port.createRoleCheck({
      ...repo,
      headSha: HEAD,
      role: "builder",
      runId: "run-1",
    });
    expect(id).toBe(12);
    expect(gh.lines()).toEqual([
      `POST ${checksPath}`,
      `GET /repos/${OWNER}/${REPO}/commits/${HEAD}/check-runs`,
    ]);
    expect(gh.requests[1]?.query).toMatchObject({ check_name: "forge/builder", filter: "all" });
  });

  it("after a dropped create that did not land, creates once more", async () => {
    const { gh, port } = setup();
    gh.on("POST", checksPath, { networkError: "ECONNRESET" });
    gh.on("GET", `/repos/${OWNER}/${REPO}/commits/${HEAD}/check-runs`, {
      status: 200,
      body: checkRunList([]),
    });
    gh.on("POST", checksPath, { status: 201, body: checkRun({ id: 13 }) });
    expect(
      await port.createRoleCheck({ ...repo, headSha: HEAD, role: "builder", runId: "r" }),
    ).toBe(13);
    expect(gh.lines().filter((l) => l.startsWith("POST"))).toHaveLength(2);
  });

  it("a refused create is a typed error, not retried and not reconciled", async () => {
    const { gh, port } = setup();
    gh.on("POST", checksPath, { status: 422, body: { message: "No commit found for SHA" } });
    const error = await port
      .createRoleCheck({ ...repo, headSha: HEAD, role: "builder", runId: "r" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({
      status: 422,
      operation: "createRoleCheck",
      outcomeUnknown: false,
    });
    expect(gh.requests).toHaveLength(1);
  });
});

describe("updateRoleCheck", () => {
  const patchPath = `${checksPath}/11`;

  it("marks a step in progress", async () => {
    const { gh, port } = setup();
    gh.on("PATCH", patchPath, { status: 200, body: checkRun({ id: 11 }) });
    await port.updateRoleCheck({
      ...repo,
      checkRunId: 11,
      role: "reviewer",
      status: "in_progress",
      summary: "Reviewing.",
    });
    expect(gh.requests[0]?.body).toEqual({
      status: "in_progress",
      started_at: "2026-12-02T12:00:00.000Z",
      output: { title: "forge/reviewer: running", summary: "Reviewing." },
    });
  });

  it("concludes success only for an explicit PASS; FAIL, no decision → failure; cancelled → cancelled", async () => {
    const { gh, port } = setup();
    gh.on("PATCH", patchPath, { status: 200, body: checkRun({ id: 11 }) }, { times: 4 });
    const base = {
      ...repo,
      checkRunId: 11,
      role: "reviewer" as const,
      status: "completed" as const,
      summary: "s",
    };
    await port.updateRoleCheck({ ...base, decision: pass });
    await port.updateRoleCheck({ ...base, decision: fail });
    await port.updateRoleCheck({ ...base, decision: null });
    await port.updateRoleCheck({ ...base, decision: pass, cancelled: true });
    const sent = gh.requests.map(
      (r) => r.body as { conclusion: string; output: { title: string } },
    );
    expect(sent.map((b) => b.conclusion)).toEqual(["success", "failure", "failure", "cancelled"]);
    expect(sent.map((b) => b.output.title)).toEqual([
      "forge/reviewer: PASS",
      "forge/reviewer: FAIL (overridden by the engine)",
      "forge/reviewer: FAIL (no valid output)",
      "forge/reviewer: cancelled",
    ]);
  });

  it("sends findings as a table and file:line findings as annotations, 50 per request", async () => {
    const { gh, port } = setup();
    const findings: Finding[] = [
      ...Array.from(
        { length: 120 },
        (_, i): Finding => ({
          severity: (["blocking", "major", "minor"] as const)[i % 3] ?? "minor",
          location:
            i % 2 === 0 ? `src/file-${i}.ts:${i + 1}` : `src/file-${i}.ts:${i + 1}-${i + 4}`,
          description: `problem ${i}`,
        }),
      ),
      { severity: "major", location: "general", description: "no tests | at all\nreally" },
      { severity: "minor", location: "README.md", description: "typo" },
      { severity: "minor", location: "../../etc/passwd:1", description: "escape" },
    ];
    gh.on("PATCH", patchPath, { status: 200, body: checkRun({ id: 11 }) }, { times: 3 });
    await port.updateRoleCheck({
      ...repo,
      checkRunId: 11,
      role: "reviewer",
      status: "completed",
      decision: fail,
      summary: "Found problems.",
      findings,
    });
    // Each request passed the OpenAPI check (maxItems 50) — or the fake would have refused it.
    type Sent = {
      conclusion?: string;
      output: {
        title: string;
        summary: string;
        text: string;
        annotations: Array<{ path: string }>;
      };
    };
    const bodies = gh.requests.map((r) => r.body as Sent);
    expect(bodies).toHaveLength(3);
    expect(bodies.map((b) => b.output.annotations.length)).toEqual([50, 50, 20]);
    expect(bodies[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(bodies[1]).not.toHaveProperty("conclusion");
    for (const b of bodies)
      expect(b.output.title).toBe("forge/reviewer: FAIL (overridden by the engine)");
    expect(bodies[0]?.output.annotations[0]).toEqual({
      path: "src/file-0.ts",
      start_line: 1,
      end_line: 1,
      annotation_level: "failure",
      message: "problem 0",
      title: "blocking",
    });
    expect(bodies[0]?.output.annotations[1]).toMatchObject({
      start_line: 2,
      end_line: 5,
      annotation_level: "warning",
    });
    const all = bodies.flatMap((b) => b.output.annotations).map((a) => a.path);
    expect(all).not.toContain("../../etc/passwd");
    expect(all).not.toContain("README.md");
    const text = bodies[0]?.output.text ?? "";
    expect(text.split("\n")).toHaveLength(2 + findings.length);
    expect(text).toContain("| major | general | no tests \\| at all really |");
    expect(bodies[0]?.output.summary).toContain("Findings: 40 blocking, 41 major, 42 minor");
  });

  it("truncates a 70 000-character summary with a visible note instead of failing", async () => {
    const { gh, port } = setup();
    gh.on("PATCH", patchPath, { status: 200, body: checkRun({ id: 11 }) }, { times: 2 });
    const base = {
      ...repo,
      checkRunId: 11,
      role: "security" as const,
      status: "completed" as const,
      decision: pass,
    };
    await port.updateRoleCheck({ ...base, summary: "a".repeat(70_000) });
    // Multi-byte text: GitHub counts bytes, so 30 000 four-byte characters are too long too.
    await port.updateRoleCheck({ ...base, summary: "🔒".repeat(30_000) });
    for (const request of gh.requests) {
      const summary: string = (request.body as { output: { summary: string } }).output.summary;
      expect(Buffer.byteLength(summary, "utf8")).toBeLessThanOrEqual(65_535);
      expect(summary).toMatch(/forgechain: summary truncated — \d+ of \d+ bytes shown/);
      expect(summary.startsWith("**Verdict: PASS**")).toBe(true);
      expect(summary).not.toMatch(/\uFFFD/);
      expect(() => encodeURIComponent(summary)).not.toThrow(); // no lone surrogate
    }
  });

  it("a failed update is a typed error with the operation and status", async () => {
    const { gh, port } = setup();
    gh.on("PATCH", patchPath, { status: 404, body: { message: "Not Found" } });
    await expect(
      port.updateRoleCheck({
        ...repo,
        checkRunId: 11,
        role: "reviewer",
        status: "in_progress",
        summary: "s",
      }),
    ).rejects.toMatchObject({ name: "GitHubError", operation: "updateRoleCheck", status: 404 });
  });
});

describe("setGate", () => {
  it("creates a completed forge/gate check run with the conclusion", async () => {
    const { gh, port } = setup();
    gh.on("POST", checksPath, { status: 201, body: checkRun({ id: 20 }) });
    const id = await port.setGate({
      ...repo,
      headSha: HEAD,
      conclusion: "failure",
      summary: "security FAILed",
    });
    expect(id).toBe(20);
    expect(gh.requests[0]?.body).toEqual({
      name: "forge/gate",
      head_sha: HEAD,
      status: "completed",
      conclusion: "failure",
      completed_at: "2026-12-02T12:00:00.000Z",
      output: { title: "Gate closed", summary: "security FAILed" },
    });
  });
});

describe("GitHub Enterprise Server", () => {
  it("talks to <host>/api/v3 and matches the GHES description", async () => {
    const { gh, port } = setup({ baseUrl: "http://127.0.0.1:3999/api/v3" });
    gh.on("POST", "/repos/{owner}/{repo}/check-runs", { status: 201, body: checkRun({ id: 30 }) });
    expect(
      await port.createRoleCheck({ ...repo, headSha: HEAD, role: "architect", runId: "run-9" }),
    ).toBe(30);
    expect(gh.requests[0]?.path).toBe(`/api/v3/repos/${OWNER}/${REPO}/check-runs`);
    expect(gh.requests[0]?.check).toMatchObject({
      ok: true,
      match: { operationId: "checks/create" },
    });
  });
});
