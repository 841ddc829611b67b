// The Actions token check against a test issuer on loopback: a real discovery document and key
// set served over HTTP, keys made by jose at test time, tokens shaped like GitHub's.
import { randomUUID } from "node:crypto";
import { type CryptoKey, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExpectedActionsToken,
  ghesActionsIssuer,
  IssuerKeyCache,
  IssuerKeysUnavailableError,
  stepAudience,
  verifyActionsToken,
} from "../../src/github/index.js";
import { KID, startIssuer, type TestIssuer } from "./oidc-issuer.js";

const REPO = "octo-org/octo-repo";
const WORKFLOW = ".github/workflows/forgechain.yml";
const SHA = "a".repeat(40);

/** The claims GitHub puts in a workflow_dispatch job's token, for step 0 attempt 1 of run-1. */
function githubClaims(issuer: string, overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  const workflowRef = `${REPO}/${WORKFLOW}@refs/heads/main`;
  return {
    jti: randomUUID(),
    sub: `repo:${REPO}:ref:refs/heads/main`,
    aud: stepAudience("run-1", 0, 1),
    ref: "refs/heads/main",
    sha: SHA,
    repository: REPO,
    repository_owner: "octo-org",
    repository_owner_id: "65",
    run_id: "9876543210",
    run_number: "12",
    run_attempt: "1",
    repository_visibility: "private",
    repository_id: "123456",
    actor_id: "583231",
    actor: "octocat",
    workflow: "forgechain",
    head_ref: "",
    base_ref: "",
    event_name: "workflow_dispatch",
    ref_type: "branch",
    workflow_ref: workflowRef,
    workflow_sha: SHA,
    job_workflow_ref: workflowRef,
    job_workflow_sha: SHA,
    runner_environment: "github-hosted",
    iss: issuer,
    nbf: now - 5,
    iat: now,
    exp: now + 300,
    ...overrides,
  };
}

function sign(payload: JWTPayload, key: CryptoKey, header: { alg?: string; kid?: string } = {}) {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT", ...header })
    .sign(key);
}

const expected: ExpectedActionsToken = {
  audience: stepAudience("run-1", 0, 1),
  repository: REPO,
  repositoryId: 123456,
  workflowPath: WORKFLOW,
};

let iss: TestIssuer;
let keys: IssuerKeyCache;
beforeAll(async () => {
  iss = await startIssuer();
  keys = new IssuerKeyCache(2000);
});
afterAll(() => new Promise<void>((resolve) => iss.server.close(() => resolve())));

async function verify(overrides: JWTPayload, want: Partial<ExpectedActionsToken> = {}) {
  const token = await sign(githubClaims(iss.issuer, overrides), iss.privateKey);
  return verifyActionsToken(token, { ...expected, ...want }, { issuer: iss.issuer, keys });
}

describe("verifyActionsToken", () => {
  it("accepts the job's token for the dispatched step and reports who ran it", async () => {
    const result = await verify({ jti: "jti-1", exp: 2_000_000_000 - 1, iat: nowS() });
    expect(result).toEqual({
      ok: true,
      claims: {
        jti: "jti-1",
        runId: "9876543210",
        runAttempt: "1",
        repository: REPO,
        repositoryId: "123456",
        sha: SHA,
        ref: "refs/heads/main",
        actor: "octocat",
        workflowRef: `${REPO}/${WORKFLOW}@refs/heads/main`,
        runnerEnvironment: "github-hosted",
        acceptedUntil: new Date((2_000_000_000 - 1 + 60) * 1000).toISOString(),
      },
    });
  });

  it("refuses a token signed by another key under the issuer's key id", async () => {
    const other = await generateKeyPair("RS256");
    const token = await sign(githubClaims(iss.issuer), other.privateKey);
    const result = await verifyActionsToken(token, expected, { issuer: iss.issuer, keys });
    expect(result).toMatchObject({ ok: false, kind: "signature" });
  });

  it("refuses a token whose key id the issuer does not have", async () => {
    const token = await sign(githubClaims(iss.issuer), iss.privateKey, { kid: "unknown" });
    const result = await verifyActionsToken(token, expected, { issuer: iss.issuer, keys });
    expect(result).toMatchObject({ ok: false, kind: "signature" });
  });

  it("refuses a token of another issuer, even signed with the right key", async () => {
    const result = await verify({ iss: "https://token.actions.githubusercontent.com" });
    expect(result).toMatchObject({ ok: false, kind: "issuer" });
    if (!result.ok) expect(result.reason).toContain(iss.issuer);
  });

  it("refuses an expired token, and one past its age, beyond the clock tolerance", async () => {
    expect(await verify({ exp: nowS() - 120, iat: nowS() - 420 })).toMatchObject({
      ok: false,
      kind: "expired",
    });
    expect(await verify({ iat: nowS() - 3600, exp: nowS() + 300 })).toMatchObject({
      ok: false,
      kind: "expired",
    });
  });

  it("tolerates a minute of clock difference, not more", async () => {
    expect((await verify({ exp: nowS() - 30 })).ok).toBe(true);
    expect((await verify({ nbf: nowS() + 30, iat: nowS() + 30 })).ok).toBe(true);
    expect(await verify({ nbf: nowS() + 600 })).toMatchObject({ ok: false, kind: "not-yet-valid" });
    expect(await verify({ iat: nowS() + 600 })).toMatchObject({ ok: false, kind: "not-yet-valid" });
  });

  it.each([
    ["another step", stepAudience("run-1", 1, 1)],
    ["another attempt", stepAudience("run-1", 0, 2)],
    ["another run", stepAudience("run-2", 0, 1)],
    ["GitHub's default audience", "https://github.com/octo-org"],
  ])("refuses a token issued for %s", async (_, aud) => {
    const result = await verify({ aud });
    expect(result).toMatchObject({ ok: false, kind: "audience" });
  });

  it("refuses a token of another repository, by name or by id", async () => {
    const other = "octo-org/other-repo";
    const byName = await verify({
      repository: other,
      workflow_ref: `${other}/${WORKFLOW}@refs/heads/main`,
    });
    expect(byName).toMatchObject({ ok: false, kind: "repository" });
    expect(await verify({ repository_id: "999" })).toMatchObject({
      ok: false,
      kind: "repository",
    });
    // GitHub compares names without case: so does the check.
    expect((await verify({}, { repository: "Octo-Org/Octo-Repo" })).ok).toBe(true);
  });

  it("refuses a job of another workflow file, or one from another repository", async () => {
    const ref = (path: string, repo = REPO) => `${repo}/${path}@refs/heads/main`;
    for (const workflowRef of [
      ref(".github/workflows/ci.yml"),
      ref(".github/workflows/forgechain.yml.evil"),
      ref(WORKFLOW, "attacker/fork"),
      `${REPO}/${WORKFLOW}@`,
    ]) {
      const result = await verify({ workflow_ref: workflowRef, job_workflow_ref: workflowRef });
      expect(result, workflowRef).toMatchObject({ ok: false, kind: "workflow" });
    }
    const noRef = await verify({ workflow_ref: undefined, job_workflow_ref: undefined });
    expect(noRef).toMatchObject({ ok: false, kind: "workflow" });
  });

  it("binds to the dispatched ref when the App pins one", async () => {
    expect((await verify({}, { ref: "refs/heads/main" })).ok).toBe(true);
    expect(await verify({}, { ref: "refs/heads/release" })).toMatchObject({
      ok: false,
      kind: "workflow",
    });
  });

  it("accepts a forgechain workflow that calls a reusable workflow", async () => {
    const result = await verify({
      job_workflow_ref: "forge-org/actions/.github/workflows/step.yml@refs/tags/v1",
    });
    expect(result.ok).toBe(true);
    // Without workflow_ref (older servers) the job's own workflow must be the forgechain one.
    expect(
      await verify({ workflow_ref: undefined, job_workflow_ref: "x/y/z.yml@v1" }),
    ).toMatchObject({ ok: false, kind: "workflow" });
  });

  it.each(["push", "pull_request_target", "workflow_run"])(
    "refuses a job started by %s",
    async (event_name) => {
      expect(await verify({ event_name })).toMatchObject({ ok: false, kind: "event" });
    },
  );

  it("refuses malformed tokens without asking the issuer", async () => {
    const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${b64(githubClaims(iss.issuer))}.`;
    const hs = await new SignJWT(githubClaims(iss.issuer))
      .setProtectedHeader({ alg: "HS256", kid: KID })
      .sign(new TextEncoder().encode("k".repeat(32)));
    const cases: Array<[string, string]> = [
      ["", "malformed"],
      ["not a token", "malformed"],
      ["a.b.c", "malformed"],
      [`${b64({ alg: "RS256", kid: KID })}.e30`, "malformed"],
      ["x".repeat(20_000), "malformed"],
      [unsigned, "signature"],
      [hs, "signature"],
    ];
    // The issuer is down: none of these may need it.
    iss.down = true;
    try {
      for (const [token, kind] of cases) {
        const result = await verifyActionsToken(token, expected, { issuer: iss.issuer, keys });
        expect(result, token.slice(0, 40)).toMatchObject({ ok: false, kind });
      }
    } finally {
      iss.down = false;
    }
  });

  it("refuses a token without the claims GitHub always sets", async () => {
    expect(await verify({ jti: undefined })).toMatchObject({ ok: false, kind: "malformed" });
    expect(await verify({ run_id: undefined })).toMatchObject({ ok: false, kind: "malformed" });
    expect(await verify({ repository_id: 123456 })).toMatchObject({
      ok: false,
      kind: "malformed",
    });
  });

  it("throws the typed error when the issuer's keys cannot be fetched, and retries later", async () => {
    const fresh = new IssuerKeyCache(2000);
    const token = await sign(githubClaims(iss.issuer), iss.privateKey);
    iss.down = true;
    try {
      await expect(
        verifyActionsToken(token, expected, { issuer: iss.issuer, keys: fresh }),
      ).rejects.toBeInstanceOf(IssuerKeysUnavailableError);
    } finally {
      iss.down = false;
    }
    // A failed discovery is not remembered.
    expect(
      (await verifyActionsToken(token, expected, { issuer: iss.issuer, keys: fresh })).ok,
    ).toBe(true);
  });

  it("does not take keys from a discovery document that is not the issuer's own", async () => {
    const token = await sign(githubClaims(iss.issuer), iss.privateKey);
    for (const discovery of [
      { issuer: "https://elsewhere.example", jwks_uri: `${iss.issuer}/.well-known/jwks` },
      { issuer: iss.issuer, jwks_uri: "https://elsewhere.example/.well-known/jwks" },
      { issuer: iss.issuer },
    ]) {
      iss.discovery = discovery;
      try {
        await expect(
          verifyActionsToken(token, expected, { issuer: iss.issuer, keys: new IssuerKeyCache() }),
        ).rejects.toBeInstanceOf(IssuerKeysUnavailableError);
      } finally {
        iss.discovery = undefined;
      }
    }
  });

  it("throws the typed error when nothing listens at the issuer", async () => {
    const closed = await startIssuer();
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    const token = await sign(githubClaims(closed.issuer), closed.privateKey);
    const error = await verifyActionsToken(token, expected, {
      issuer: closed.issuer,
      keys: new IssuerKeyCache(2000),
    }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(IssuerKeysUnavailableError);
    expect((error as IssuerKeysUnavailableError).issuer).toBe(closed.issuer);
  });

  it("names GitHub Enterprise Server's issuer", () => {
    expect(ghesActionsIssuer("ghe.example.com")).toBe("https://ghe.example.com/_services/token");
  });
});

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
