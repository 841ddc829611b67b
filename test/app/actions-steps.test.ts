// Role steps run by Actions jobs, the App's side, with real parts: the engine on a real SQLite
// journal, the dispatch through the GitHub port to a fake GitHub on nock (checked against
// GitHub's OpenAPI description), the report route on a real loopback HTTP server, tokens from a
// test issuer on loopback. The test plays the Actions job: it sees the dispatch and reports.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JWTPayload, SignJWT } from "jose";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stepReportHandler } from "../../src/app/actions-routes.js";
import {
  createActionsSteps,
  DEFAULT_WORKFLOW,
  REPORT_REFUSED_EVENT,
} from "../../src/app/actions-steps.js";
import { createChainEngine } from "../../src/chain/engine.js";
import type { StepRunner } from "../../src/chain/ports.js";
import { createGitHubPort } from "../../src/github/create-port.js";
import { IssuerKeyCache, stepAudience } from "../../src/github/index.js";
import { openJournal, type SqliteJournal } from "../../src/store/sqlite-journal.js";
import { changeRun, counterIds, memoryLogger, SNAPSHOT } from "../chain/engine-harness.js";
import { KID, startIssuer, type TestIssuer } from "../github/oidc-issuer.js";
import { createTestOctokit, type GitHubMock, mockGitHub } from "../harness/openapi-check.js";
import { validOutput } from "../roles/output-schema-fixtures.js";

const OWNER = "octo-org";
const REPO = "widgets";
const FULL = `${OWNER}/${REPO}`;
const DISPATCH = `/repos/${OWNER}/${REPO}/actions/workflows/forgechain-steps.yml/dispatches`;

let iss: TestIssuer;
let route: Server;
let routeUrl: string;
let store: SqliteJournal;
let dir: string;
let gh: GitHubMock;
const keys = new IssuerKeyCache(2000);

beforeAll(async () => {
  iss = await startIssuer();
});
afterAll(() => new Promise<void>((resolve) => iss.server.close(() => resolve())));
afterEach(async () => {
  await new Promise<void>((resolve) => route?.close(() => resolve()));
  gh?.close();
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function setup(o: { reportTimeoutMs?: number } = {}) {
  dir = mkdtempSync(join(tmpdir(), "forge-actions-steps-"));
  store = openJournal(join(dir, "journal.db"));
  gh = mockGitHub();
  gh.on("POST", DISPATCH, { status: 204 }, { times: 20, optional: true });
  // The route and the issuer are on loopback; only GitHub's API is faked.
  nock.enableNetConnect("127.0.0.1");
  const port = createGitHubPort({ octokit: createTestOctokit(), timeoutMs: 30_000 });
  const clock = { now: () => new Date() };
  const steps = createActionsSteps({
    store,
    installations: { port: async () => port },
    clock,
    reportTimeoutMs: o.reportTimeoutMs ?? 60_000,
    pollMs: 20,
  });
  const runner: StepRunner = {
    runStep: steps.runStep,
    finishRun: async () => ({ runOutputPath: null, branch: null, headSha: null, events: [] }),
  };
  const engine = createChainEngine({
    store,
    runner,
    clock,
    logger: memoryLogger(),
    ids: counterIds("act"),
  });
  const handler = stepReportHandler({
    store,
    logger: memoryLogger(),
    verify: { issuer: iss.issuer, keys },
  });
  route = createServer((req, res) => {
    handler(req, res).then((ours) => {
      if (!ours) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => route.listen(0, "127.0.0.1", resolve));
  routeUrl = `http://127.0.0.1:${(route.address() as AddressInfo).port}/forge/step-report`;
  const github = {
    installationId: 42,
    owner: OWNER,
    repo: REPO,
    fullName: FULL,
    issueNumber: 7,
    trigger: { event: "issues.labeled", delivery: "d-1", actor: "alice" },
  };
  const run = await engine.startRun(changeRun({ snapshotContent: { ...SNAPSHOT, github } }));
  return { engine, run };
}

/** The token GitHub gives the dispatched job when it asks for the step's audience. */
function token(runId: string, index: number, attempt: number, over: JWTPayload = {}) {
  const now = Math.floor(Date.now() / 1000);
  const workflowRef = `${FULL}/${DEFAULT_WORKFLOW}@refs/heads/main`;
  return new SignJWT({
    jti: `jti-${Math.random()}`,
    aud: stepAudience(runId, index, attempt),
    iss: iss.issuer,
    repository: FULL,
    repository_id: "123456",
    event_name: "workflow_dispatch",
    ref: "refs/heads/main",
    sha: "a".repeat(40),
    actor: "octocat",
    run_id: "777",
    run_attempt: "1",
    workflow_ref: workflowRef,
    job_workflow_ref: workflowRef,
    iat: now,
    nbf: now - 5,
    exp: now + 300,
    ...over,
  })
    .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
    .sign(iss.privateKey);
}

async function report(body: unknown): Promise<{ status: number; message: string }> {
  const res = await fetch(routeUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, message: ((await res.json()) as { message: string }).message };
}

/** The first job's report (the architect's, step 0, attempt 1), signed with its own token. */
async function architectReport(runId: string, result: Record<string, unknown>) {
  return report({ token: await token(runId, 0, 1), runId, index: 0, attempt: 1, result });
}

async function input(runId: string, index: number, attempt: number, bearer: string) {
  const url = new URL(routeUrl.replace("step-report", "step-input"));
  url.search = new URLSearchParams({
    run: runId,
    index: String(index),
    attempt: String(attempt),
  }).toString();
  const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function dispatches(count: number): Promise<void> {
  const until = Date.now() + 20_000;
  while (gh.requests.filter((r) => r.pathname === DISPATCH).length < count) {
    if (Date.now() > until) throw new Error(`expected ${count} dispatches: ${gh.lines()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("role steps on Actions jobs (the App's side)", () => {
  it("dispatches the step with its run, index and attempt; the job's report is judged by the engine", async () => {
    const { engine, run } = await setup();
    const driven = engine.drive(run.id);
    await dispatches(1);
    const sent = gh.requests.find((r) => r.pathname === DISPATCH);
    expect(sent?.check.ok).toBe(true);
    expect(sent?.body).toEqual({
      ref: "main",
      inputs: { forge_run: run.id, forge_step: "0", forge_attempt: "1" },
    });
    // What a job adds beside its measurements is not read: the engine judges the output.
    const accepted = await architectReport(run.id, {
      agentOutput: validOutput("architect"),
      failures: [],
      decision: { verdict: "FAIL" },
    });
    expect(accepted).toEqual({ status: 202, message: "accepted" });
    await dispatches(2); // the architect passed: the builder's job is dispatched next
    const steps = await store.getSteps(run.id);
    expect(steps[0]?.state).toBe("passed");
    expect(steps[1]?.state).toBe("running");
    await engine.cancel(run.id, "test over");
    await driven;
  });

  it("a job's FAIL reasons fail the step, whatever its output says", async () => {
    const { engine, run } = await setup();
    const driven = engine.drive(run.id);
    await dispatches(1);
    await architectReport(run.id, {
      agentOutput: validOutput("architect"),
      failures: ["the agent timed out"],
    });
    const done = await driven;
    expect(done.state).toBe("failed");
    const finished = (await store.events(run.id)).find((e) => e.type === "step.finished");
    expect(JSON.stringify(finished?.data)).toContain("the agent timed out");
    expect((await store.getSteps(run.id))[0]?.state).toBe("failed");
  });

  it("a job that sends a kind of event only the engine or the App writes FAILs its step", async () => {
    const { engine, run } = await setup();
    const driven = engine.drive(run.id);
    await dispatches(1);
    const accepted = await architectReport(run.id, {
      agentOutput: validOutput("architect"),
      failures: [],
      events: [
        { type: "step.wrote", data: { files: [] } },
        { type: "protected.touched", data: { files: [] } },
      ],
    });
    expect(accepted.status).toBe(202);
    const done = await driven;
    expect(done.state).toBe("failed");
    const events = await store.events(run.id);
    const finished = events.find((e) => e.type === "step.finished");
    expect(JSON.stringify(finished?.data)).toContain("not a kind of fact a step's runner journals");
    expect(events.some((e) => e.type === "protected.touched")).toBe(false);
  });

  it("refuses forged, foreign, misdirected and replayed reports, each journaled on the run; the step keeps waiting", async () => {
    const { engine, run } = await setup();
    const driven = engine.drive(run.id);
    await dispatches(1);
    const result = { agentOutput: validOutput("architect"), failures: [] };
    const base = { runId: run.id, index: 0, attempt: 1, result };
    const other = await startIssuer();
    try {
      const cases: Array<[string, () => Promise<unknown>, number]> = [
        [
          "signed by another key",
          async () => {
            const now = Math.floor(Date.now() / 1000);
            return {
              ...base,
              token: await new SignJWT({
                aud: stepAudience(run.id, 0, 1),
                iss: iss.issuer,
                exp: now + 300,
                iat: now,
              })
                .setProtectedHeader({ alg: "RS256", kid: KID })
                .sign(other.privateKey),
            };
          },
          403,
        ],
        [
          "another repository",
          async () => ({
            ...base,
            token: await token(run.id, 0, 1, { repository: "attacker/widgets" }),
          }),
          403,
        ],
        ["another step's token", async () => ({ ...base, token: await token(run.id, 1, 1) }), 403],
        [
          "a step not dispatched",
          async () => ({ ...base, index: 2, token: await token(run.id, 2, 1) }),
          409,
        ],
      ];
      for (const [, make, status] of cases)
        expect((await report(await make())).status).toBe(status);
      const refused = (await store.events(run.id)).filter((e) => e.type === REPORT_REFUSED_EVENT);
      expect(refused.map((e) => e.data.kind)).toEqual([
        "signature",
        "repository",
        "audience",
        "not-dispatched",
      ]);
      expect((await store.getSteps(run.id))[0]?.state).toBe("running");

      // The real report is accepted once; the same token again is a replay.
      const real = { ...base, token: await token(run.id, 0, 1) };
      expect((await report(real)).status).toBe(202);
      const again = await report(real);
      expect(again.status).toBeGreaterThanOrEqual(400);
    } finally {
      await new Promise<void>((resolve) => other.server.close(() => resolve()));
    }
    await dispatches(2);
    await engine.cancel(run.id, "test over");
    await driven;
  });

  it("a cancelled run cancels the workflow run that picked its step up", async () => {
    const { engine, run } = await setup();
    const cancel = `/repos/${OWNER}/${REPO}/actions/runs/777/cancel`;
    gh.on("POST", cancel, { status: 202, body: {} });
    const driven = engine.drive(run.id);
    await dispatches(1);
    // The job (workflow run 777, as its token says) took the step's input, then the run stops.
    expect((await input(run.id, 0, 1, await token(run.id, 0, 1))).status).toBe(200);
    await engine.cancel(run.id, "a human cancelled it");
    await driven;
    const sent = gh.requests.filter((r) => r.pathname === cancel);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.check.ok).toBe(true);
    const picked = (await store.events(run.id)).filter((e) => e.type === "actions.step.picked");
    expect(picked.map((e) => e.data)).toEqual([{ index: 0, attempt: 1, workflowRunId: "777" }]);
  });

  it("a job that never reports is dispatched again, then its step FAILs, saying so", async () => {
    const { engine, run } = await setup({ reportTimeoutMs: 300 });
    const done = await engine.drive(run.id);
    expect(done.state).toBe("failed");
    expect((await store.getSteps(run.id))[0]?.state).toBe("failed");
    const finished = (await store.events(run.id)).filter((e) => e.type === "step.finished");
    expect(JSON.stringify(finished.at(-1)?.data)).toContain("sent no report within");
    expect(gh.requests.filter((r) => r.pathname === DISPATCH)).toHaveLength(2);
  });

  it("the job reads its step's input with its token: the run, the role, the task, the steps before it", async () => {
    const { engine, run } = await setup();
    const driven = engine.drive(run.id);
    await dispatches(1);
    const first = await input(run.id, 0, 1, await token(run.id, 0, 1));
    expect(first.status).toBe(200);
    expect((first.body.run as { id: string }).id).toBe(run.id);
    expect(first.body.job).toMatchObject({ chain: "change", role: "architect", prior: [] });
    // Another step's token, a forged one: nothing.
    expect((await input(run.id, 0, 1, await token(run.id, 1, 1))).status).toBe(403);
    expect((await input(run.id, 0, 1, "not.a.token")).status).toBe(403);
    await architectReport(run.id, { agentOutput: validOutput("architect"), failures: [] });
    await dispatches(2);
    const second = await input(run.id, 1, 1, await token(run.id, 1, 1));
    expect(second.status).toBe(200);
    const job = second.body.job as { role: string; prior: Array<{ role: string }> };
    expect(job.role).toBe("builder");
    expect(job.prior.map((p) => p.role)).toEqual(["architect"]);
    const refused = (await store.events(run.id)).filter((e) => e.type === REPORT_REFUSED_EVENT);
    expect(refused.map((e) => e.data.kind)).toEqual(["audience", "malformed"]);
    await engine.cancel(run.id, "test over");
    await driven;
  });
});
