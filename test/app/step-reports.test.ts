// Step reports from Actions jobs, end to end below the HTTP route: a test issuer on loopback
// (discovery document and key set over HTTP, keys made by jose at test time), tokens shaped
// like GitHub's, and a real SQLite journal consuming each token's id once.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CryptoKey, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  acceptStepReport,
  type DispatchedStep,
  MAX_RESULT_BYTES,
  type StepReportDeps,
} from "../../src/app/step-reports.js";
import {
  IssuerKeyCache,
  IssuerKeysUnavailableError,
  stepAudience,
} from "../../src/github/index.js";
import { openJournal, type SqliteJournal } from "../../src/store/sqlite-journal.js";
import { KID, startIssuer, type TestIssuer } from "../github/oidc-issuer.js";

const REPO = "octo-org/octo-repo";
const WORKFLOW = ".github/workflows/forgechain.yml";
const RUN = "3f2a9c0d1e4b5a6978877665544332211";

let iss: TestIssuer;
beforeAll(async () => {
  iss = await startIssuer();
});
afterAll(() => new Promise<void>((resolve) => iss.server.close(() => resolve())));

/** A workflow_dispatch job's token, as GitHub issues it, asking for the step's audience. */
function token(index: number, attempt: number, overrides: JWTPayload = {}, key?: CryptoKey) {
  const now = Math.floor(Date.now() / 1000);
  const workflowRef = `${REPO}/${WORKFLOW}@refs/heads/main`;
  return new SignJWT({
    jti: randomUUID(),
    sub: `repo:${REPO}:ref:refs/heads/main`,
    aud: stepAudience(RUN, index, attempt),
    ref: "refs/heads/main",
    sha: "b".repeat(40),
    repository: REPO,
    repository_owner: "octo-org",
    repository_id: "123456",
    run_id: "9876543210",
    run_number: "12",
    run_attempt: "1",
    actor: "octocat",
    event_name: "workflow_dispatch",
    workflow_ref: workflowRef,
    job_workflow_ref: workflowRef,
    runner_environment: "self-hosted",
    iss: iss.issuer,
    nbf: now - 5,
    iat: now,
    exp: now + 300,
    ...overrides,
  })
    .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
    .sign(key ?? iss.privateKey);
}

let dir: string;
let journal: SqliteJournal;
let waiting: Map<string, DispatchedStep>;
let deps: StepReportDeps;
const target: DispatchedStep = { repository: REPO, repositoryId: "123456", workflowPath: WORKFLOW };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "forge-step-reports-"));
  journal = openJournal(join(dir, "journal.db"));
  // Steps 0 and 1 (attempt 1) of the run were dispatched and are waiting.
  waiting = new Map([
    [`${RUN}:0:1`, target],
    [`${RUN}:1:1`, target],
  ]);
  deps = {
    dispatched: (runId, index, attempt) => waiting.get(`${runId}:${index}:${attempt}`) ?? null,
    store: journal,
    verify: { issuer: iss.issuer, keys: new IssuerKeyCache(2000) },
  };
});
afterEach(async () => {
  await journal.close();
  rmSync(dir, { recursive: true, force: true });
});

const report = (t: string, index = 0, attempt = 1, result: unknown = { output: "done" }) => ({
  token: t,
  runId: RUN,
  index,
  attempt,
  result,
});

describe("acceptStepReport", () => {
  it("accepts the dispatched step's report with its result and who ran it", async () => {
    const result = { verdict: "PASS", output: { summary: "built" } };
    const outcome = await acceptStepReport(report(await token(0, 1), 0, 1, result), deps);
    expect(outcome).toMatchObject({ ok: true, runId: RUN, index: 0, attempt: 1, result });
    if (outcome.ok) {
      expect(outcome.claims).toMatchObject({ repository: REPO, runId: "9876543210" });
      expect(outcome.claims.runnerEnvironment).toBe("self-hosted");
    }
  });

  it("refuses a replay of an accepted token", async () => {
    const t = await token(0, 1);
    expect((await acceptStepReport(report(t), deps)).ok).toBe(true);
    const again = await acceptStepReport(report(t, 0, 1, { output: "other" }), deps);
    expect(again).toMatchObject({ ok: false, kind: "replay" });
  });

  it("refuses a replay across journal connections (the nonce is in the journal)", async () => {
    const t = await token(0, 1);
    expect((await acceptStepReport(report(t), deps)).ok).toBe(true);
    const other = openJournal(join(dir, "journal.db"));
    try {
      const again = await acceptStepReport(report(t), { ...deps, store: other });
      expect(again).toMatchObject({ ok: false, kind: "replay" });
    } finally {
      await other.close();
    }
  });

  it("refuses a report for a step that was not dispatched or no longer waits", async () => {
    const t = await token(2, 1);
    expect(await acceptStepReport(report(t, 2, 1), deps)).toMatchObject({
      ok: false,
      kind: "not-dispatched",
    });
    waiting.delete(`${RUN}:0:1`);
    expect(await acceptStepReport(report(await token(0, 1)), deps)).toMatchObject({
      ok: false,
      kind: "not-dispatched",
    });
  });

  it("refuses a token issued for another step or attempt", async () => {
    waiting.set(`${RUN}:0:2`, target);
    const forStep0 = await token(0, 1);
    expect(await acceptStepReport(report(forStep0, 1, 1), deps)).toMatchObject({
      ok: false,
      kind: "audience",
    });
    expect(await acceptStepReport(report(forStep0, 0, 2), deps)).toMatchObject({
      ok: false,
      kind: "audience",
    });
    // Refusals consume nothing: the token still reports its own step.
    expect((await acceptStepReport(report(forStep0, 0, 1), deps)).ok).toBe(true);
  });

  it("refuses forged and foreign tokens, each with its reason", async () => {
    const otherKey = (await generateKeyPair("RS256")).privateKey;
    const otherWorkflow = `${REPO}/.github/workflows/ci.yml@refs/heads/main`;
    const cases: Array<[string, Promise<string>]> = [
      ["signature", token(0, 1, {}, otherKey)],
      ["issuer", token(0, 1, { iss: "https://token.actions.githubusercontent.com" })],
      ["expired", token(0, 1, { iat: nowS() - 500, exp: nowS() - 200 })],
      ["repository", token(0, 1, { repository: "attacker/octo-repo" })],
      ["workflow", token(0, 1, { workflow_ref: otherWorkflow, job_workflow_ref: otherWorkflow })],
      ["event", token(0, 1, { event_name: "push" })],
      ["malformed", Promise.resolve("eyJhbGciOiJSUzI1NiJ9.not-json.sig")],
    ];
    for (const [kind, pending] of cases) {
      const outcome = await acceptStepReport(report(await pending), deps);
      expect(outcome, kind).toMatchObject({ ok: false, kind });
      if (!outcome.ok) expect(outcome.reason.length).toBeGreaterThan(10);
    }
  });

  it("a forged report cannot use up a real token's id", async () => {
    const jti = randomUUID();
    const forged = await token(0, 1, { jti }, (await generateKeyPair("RS256")).privateKey);
    expect(await acceptStepReport(report(forged), deps)).toMatchObject({
      ok: false,
      kind: "signature",
    });
    expect((await acceptStepReport(report(await token(0, 1, { jti })), deps)).ok).toBe(true);
  });

  it("refuses a result larger than 2 MiB, and accepts one just under", async () => {
    const t = await token(0, 1);
    const big = { output: "x".repeat(MAX_RESULT_BYTES) };
    const outcome = await acceptStepReport(report(t, 0, 1, big), deps);
    expect(outcome).toMatchObject({ ok: false, kind: "too-large" });
    if (!outcome.ok) expect(outcome.reason).toContain(String(MAX_RESULT_BYTES));
    const fits = { output: "é".repeat((MAX_RESULT_BYTES - 20) / 2) };
    expect((await acceptStepReport(report(t, 0, 1, fits), deps)).ok).toBe(true);
  });

  it.each([
    ["not an object", "report"],
    ["no token", { runId: RUN, index: 0, attempt: 1, result: {} }],
    ["a negative index", { token: "t", runId: RUN, index: -1, attempt: 1, result: {} }],
    ["attempt 0", { token: "t", runId: RUN, index: 0, attempt: 0, result: {} }],
    ["a run id with a colon", { token: "t", runId: "a:1", index: 0, attempt: 1, result: {} }],
    ["an unknown field", { token: "t", runId: RUN, index: 0, attempt: 1, result: {}, x: 1 }],
    ["no result", { token: "t", runId: RUN, index: 0, attempt: 1 }],
    ["a result with no JSON form", { token: "t", runId: RUN, index: 0, attempt: 1, result: 1n }],
  ])("refuses a report with %s", async (_, body) => {
    expect(await acceptStepReport(body, deps)).toMatchObject({
      ok: false,
      kind: "malformed-report",
    });
  });

  it("throws the typed error, consuming nothing, when the issuer's keys are out of reach", async () => {
    const t = await token(0, 1);
    iss.down = true;
    try {
      await expect(acceptStepReport(report(t), deps)).rejects.toBeInstanceOf(
        IssuerKeysUnavailableError,
      );
    } finally {
      iss.down = false;
    }
    // The job sends the same report again once the issuer answers.
    expect((await acceptStepReport(report(t), deps)).ok).toBe(true);
  });
});

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}
