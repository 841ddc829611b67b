// Role steps on GitHub Actions, end to end: the real `forge serve` with FORGE_RUNNER=actions, a
// fake GitHub on loopback (the API checked against GitHub's description, git through the real
// `git http-backend`) that, on `workflow_dispatch`, runs the bundled Action the way a runner
// would — its own RUNNER_TEMP, the Actions environment, a workflow token, an identity token
// service of a test OIDC issuer whose keys the App fetches — and the real claude in bwrap
// boxes on the scripted model. Every step of the chain runs in a "runner"; the App only
// dispatches, checks, recomputes and judges.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JWTPayload } from "jose";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { stepAudience } from "../../src/github/index.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { runnerEnv } from "../action/action-kit.js";
import { demoRemote } from "../app/demo-remote.js";
import { type FakeGitHubServer, startFakeGitHub } from "../app/fake-github-server.js";
import { createGitHubState, type Dispatch, type GitHubState } from "../app/github-state.js";
import { issueLabeled } from "../app/payloads.js";
import { type ServeProcess, startServeProcess } from "../app/serve-process.js";
import { KID, signToken, startIssuer, type TestIssuer } from "../github/oidc-issuer.js";
import { ensureBuilt } from "../harness/build.js";
import { REPO_ROOT } from "../harness/claude-run.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { waitFor as waitUntil } from "../harness/wait-for.js";

let root: string;
let bare: string;
let state: GitHubState;
let fake: FakeGitHubServer;
let model: ModelServer;
let iss: TestIssuer;
const serves: ServeProcess[] = [];
/** What the "runner" does with a dispatch: run the Action, or never pick the job up. */
let runnerMode: "run" | "never" = "run";
let appUrl = "";
const jobs: Array<{
  dispatch: Dispatch;
  child: ChildProcess;
  code: Promise<number>;
  log: string[];
}> = [];

/** The claims GitHub puts in a dispatched job's identity token. */
function jobClaims(d: Dispatch, n: number): JWTPayload {
  const workflowRef = `${d.owner}/${d.repo}/.github/workflows/${d.workflow}@refs/heads/${d.ref}`;
  return {
    repository: `${d.owner}/${d.repo}`,
    repository_id: "1296269",
    repository_owner: d.owner,
    event_name: "workflow_dispatch",
    ref: `refs/heads/${d.ref}`,
    sha: "0".repeat(40),
    actor: "forgechain[bot]",
    run_id: String(9000 + n),
    run_attempt: "1",
    workflow_ref: workflowRef,
    job_workflow_ref: workflowRef,
    runner_environment: "github-hosted",
  };
}

/** One workflow run of the dispatched job, as the runner starts the action's step. */
function runJob(d: Dispatch): void {
  if (runnerMode === "never") return;
  const n = jobs.length + 1;
  const temp = join(root, `runner-${n}`);
  mkdirSync(temp, { recursive: true });
  const event = join(temp, "event.json");
  writeFileSync(
    event,
    JSON.stringify({
      inputs: d.inputs,
      ref: `refs/heads/${d.ref}`,
      repository: { full_name: `${d.owner}/${d.repo}` },
      workflow: `.github/workflows/${d.workflow}`,
    }),
  );
  const output = join(temp, "output");
  writeFileSync(output, "");
  // The workflow's own token: the fake GitHub accepts it for the API and for git.
  const token = `ghs_${randomBytes(18).toString("hex")}`;
  state.tokens.push(token);
  const id = iss.job(jobClaims(d, n));
  const env = {
    ...runnerEnv({
      host: fake.host,
      root: REPO_ROOT,
      temp,
      eventName: "workflow_dispatch",
      event,
      runId: String(9000 + n),
      token,
      modelUrl: model.url,
      output,
    }),
    INPUT_FORGE_URL: appUrl,
    ACTIONS_ID_TOKEN_REQUEST_URL: id.url,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: id.token,
  };
  const log: string[] = [];
  const child = spawn(process.execPath, [join(REPO_ROOT, "action", "dist", "index.js")], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c) => log.push(String(c)));
  child.stderr?.on("data", (c) => log.push(String(c)));
  const code = new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  jobs.push({ dispatch: d, child, code, log });
}

/** What a timed-out wait shows: the API calls, the comments, the App's and the jobs' logs. */
function tail(): string[] {
  const logs = [...serves.flatMap((s) => s.logs), ...jobs.flatMap((j) => j.log)];
  const api = fake.api.map((r) => `${r.status} ${r.method} ${r.pathname}`);
  const said = state.comments.map((c) => `#${c.issue}: ${c.body.slice(0, 600)}`);
  return [...api, ...said, ...logs].slice(-80).map((l) => l.slice(0, 600));
}

const waitFor = <T>(what: string, fn: () => T | undefined | null | false, ms?: number) =>
  waitUntil(what, fn, tail, ms);

async function serveWithActions(name: string, env: Record<string, string> = {}) {
  const s = await startServeProcess({
    gheHost: fake.host,
    forgeHome: join(root, name),
    modelUrl: model.url,
    env: { FORGE_RUNNER: "actions", FORGE_ACTIONS_OIDC_ISSUER: iss.issuer, ...env },
  });
  serves.push(s);
  appUrl = `http://127.0.0.1:${s.port}`;
  return s;
}

beforeAll(async () => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "forge-actions-e2e-"));
  ({ bare } = await demoRemote(root));
  state = createGitHubState();
  state.permissions.set("alice", "write");
  state.onDispatch = runJob;
  fake = await startFakeGitHub({ state, gitRoot: join(root, "git") });
  model = await startModelServer(demoScript());
  iss = await startIssuer();
}, 180_000);

afterAll(async () => {
  for (const j of jobs) if (j.child.exitCode === null) j.child.kill("SIGKILL");
  await Promise.all(serves.map((s) => s.stop()));
  await fake?.close();
  await model?.close();
  await new Promise<void>((resolve) => (iss ? iss.server.close(() => resolve()) : resolve()));
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("role steps on GitHub Actions runners", () => {
  it("a 4-role chain passes with every step run by a dispatched job", async () => {
    const serve = await serveWithActions("home-chain");
    const delivered = await serve.deliver("issues", issueLabeled({ sender: "alice", number: 40 }));
    expect(delivered.status).toBeLessThan(300);
    const final = await waitFor("the chain to end", () =>
      state.commentsOn(40).find((c) => /change chain · (✅ passed|❌ failed)/.test(c.body)),
    );
    const codes = await Promise.all(jobs.map((j) => j.code));
    expect(final.body, jobs.map((j) => j.log.join("")).join("\n----\n")).toContain(
      "change chain · ✅ passed",
    );
    // One dispatch per role, on the base branch, with nothing but the step's coordinates.
    expect(state.dispatches.map((d) => d.inputs.forge_step)).toEqual(["0", "1", "2", "3"]);
    for (const d of state.dispatches) {
      expect(d.workflow).toBe("forgechain-steps.yml");
      expect(d.ref).toBe("main");
      expect(Object.keys(d.inputs).sort()).toEqual(["forge_attempt", "forge_run", "forge_step"]);
    }
    expect(codes).toEqual([0, 0, 0, 0]);
    // Each runner is a machine forgechain has not seen: each job proved its box first.
    for (const j of jobs) expect(j.log.join("")).toContain("proved this runner's box");
    const runId = state.dispatches[0]?.inputs.forge_run ?? "";

    // The builder's job pushed its work under the run's work ref; the App pushed the branch on it.
    const workRef = `refs/forge/runs/${runId}/work-1-1`;
    const work = execFileSync("git", ["-C", bare, "rev-parse", workRef], {
      encoding: "utf8",
    }).trim();
    const gate = await waitFor("forge/gate", () =>
      state.checkRuns.find((c) => c.name === "forge/gate"),
    );
    expect(gate.conclusion).toBe("success");
    const parent = execFileSync("git", ["-C", bare, "rev-parse", `${gate.headSha}^`], {
      encoding: "utf8",
    }).trim();
    expect(parent).toBe(work);

    const journal = openJournal(join(root, "home-chain", "journal.db"));
    try {
      const events = await journal.events(runId);
      const reported = events.filter((e) => e.type === "actions.step.reported");
      expect(reported.map((e) => e.data.index)).toEqual([0, 1, 2, 3]);
      // Each report came from a job of the repository's workflow, as its token said.
      for (const e of reported) expect(e.data.job).toMatchObject({ actor: "forgechain[bot]" });
      const adopted = events.filter((e) => e.type === "actions.work.adopted");
      expect(adopted.map((e) => e.data.sha)).toEqual([work]);
      expect(events.filter((e) => e.type === "actions.report.refused")).toEqual([]);
    } finally {
      journal.close();
    }
    for (const r of fake.api) {
      expect(r.problems, `${r.method} ${r.path}`).toEqual([]);
      assertMatchesOpenApi({ method: r.method, path: r.path, body: r.body });
    }
  }, 600_000);

  it("forged and replayed reports are refused and journaled; a job that never reports FAILs its step", async () => {
    runnerMode = "never";
    const serve = await serveWithActions("home-silent", { FORGE_ACTIONS_TIMEOUT_MS: "6000" });
    const before = state.dispatches.length;
    await serve.deliver("issues", issueLabeled({ sender: "alice", number: 41 }));
    const d = await waitFor("the architect's dispatch", () => state.dispatches[before]);
    const runId = d.inputs.forge_run ?? "";
    const claims = jobClaims(d, 99);
    const now = Math.floor(Date.now() / 1000);
    const token = (over: JWTPayload, key = iss.privateKey) =>
      new SignJWT({
        ...claims,
        aud: stepAudience(runId, 0, 1),
        iss: iss.issuer,
        jti: randomBytes(8).toString("hex"),
        iat: now,
        exp: now + 300,
        ...over,
      })
        .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
        .sign(key);
    const report = async (t: string, index = 0) => {
      const r = await fetch(`${appUrl}/forge/step-report`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: t, runId, index, attempt: 1, result: { failures: [] } }),
      });
      return {
        status: r.status,
        message: String(((await r.json()) as { message: string }).message),
      };
    };
    const stranger = await generateKeyPair("RS256");
    const signature = await report(await token({}, stranger.privateKey));
    expect(signature).toMatchObject({ status: 403 });
    expect(signature.message).toContain("signature");
    const repository = await report(await token({ repository: "someone/else" }));
    expect(repository).toMatchObject({ status: 403 });
    expect(repository.message).toContain("someone/else");
    const otherStep = await report(await token({ aud: stepAudience(runId, 2, 1) }));
    expect(otherStep).toMatchObject({ status: 403 });
    expect(otherStep.message).toContain("another step");
    const notDispatched = await report(await token({ aud: stepAudience(runId, 2, 1) }), 2);
    expect(notDispatched.status).toBe(409);
    // A real token used once (for the step's input), then again for a report: a replay.
    const once = await signToken(iss, {
      ...claims,
      aud: stepAudience(runId, 0, 1),
      iss: iss.issuer,
      jti: "the-one-and-only",
      iat: now,
      exp: now + 300,
    });
    const input = await fetch(`${appUrl}/forge/step-input?run=${runId}&index=0&attempt=1`, {
      headers: { authorization: `Bearer ${once}` },
    });
    expect(input.status).toBe(200);
    const replay = await report(once);
    expect(replay).toMatchObject({ status: 403 });
    expect(replay.message).toContain("already used");

    // Nobody ever reports: dispatched a second time, then the step FAILs and says why.
    const failed = await waitFor(
      "the silent step to fail",
      () => state.commentsOn(41).find((c) => c.body.includes("change chain · ❌ failed")),
      60_000,
    );
    expect(failed.body).toContain("sent no report");
    expect(state.dispatches.slice(before).map((x) => x.inputs.forge_step)).toEqual(["0", "0"]);
    // The one "job" that took the step (the token used for its input) is cancelled: nobody waits.
    expect(state.cancelledRuns).toEqual([9099]);
    const check = state.checkRuns.find(
      (c) => c.name === "forge/architect" && c.externalId === runId && c.conclusion,
    );
    expect(check?.conclusion).toBe("failure");
    const journal = openJournal(join(root, "home-silent", "journal.db"));
    try {
      const refused = (await journal.events(runId)).filter(
        (e) => e.type === "actions.report.refused",
      );
      expect(refused.map((e) => e.data.kind)).toEqual([
        "signature",
        "repository",
        "audience",
        "not-dispatched",
        "replay",
      ]);
    } finally {
      journal.close();
    }
  }, 300_000);
});
