// Role steps on GitHub Actions, end to end (the world: actions-kit.ts), on the demo: reports
// that are forged, replayed or never sent. Whole chains whose every step a "runner" runs are in
// actions-projects.test.ts, on the sample projects.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { JWTPayload } from "jose";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { stepAudience } from "../../src/github/index.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { demoRemote } from "../app/demo-remote.js";
import { issueLabeled } from "../app/payloads.js";
import { KID, signToken } from "../github/oidc-issuer.js";
import { type ActionsWorld, jobClaims, startActionsWorld } from "./actions-kit.js";

let w: ActionsWorld;

beforeAll(async () => {
  w = await startActionsWorld({
    prefix: "forge-actions-e2e-",
    repository: demoRemote,
    script: demoScript(),
  });
}, 180_000);

afterAll(async () => {
  await w?.close();
});

describe("role steps on GitHub Actions runners", () => {
  it("forged and replayed reports are refused and journaled; a job that never reports FAILs its step", async () => {
    w.runnerMode = "never";
    const serve = await w.serveWithActions("home-silent", { FORGE_ACTIONS_TIMEOUT_MS: "6000" });
    const before = w.state.dispatches.length;
    await serve.deliver("issues", issueLabeled({ sender: "alice", number: 41 }));
    const d = await w.waitFor("the architect's dispatch", () => w.state.dispatches[before]);
    const runId = d.inputs.forge_run ?? "";
    const claims = jobClaims(d, 99);
    const now = Math.floor(Date.now() / 1000);
    const token = (over: JWTPayload, key = w.iss.privateKey) =>
      new SignJWT({
        ...claims,
        aud: stepAudience(runId, 0, 1),
        iss: w.iss.issuer,
        jti: randomBytes(8).toString("hex"),
        iat: now,
        exp: now + 300,
        ...over,
      })
        .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
        .sign(key);
    const report = async (t: string, index = 0) => {
      const r = await fetch(`${w.appUrl}/forge/step-report`, {
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
    const once = await signToken(w.iss, {
      ...claims,
      aud: stepAudience(runId, 0, 1),
      iss: w.iss.issuer,
      jti: "the-one-and-only",
      iat: now,
      exp: now + 300,
    });
    const input = await fetch(`${w.appUrl}/forge/step-input?run=${runId}&index=0&attempt=1`, {
      headers: { authorization: `Bearer ${once}` },
    });
    expect(input.status).toBe(200);
    const replay = await report(once);
    expect(replay).toMatchObject({ status: 403 });
    expect(replay.message).toContain("already used");

    // Nobody ever reports: dispatched a second time, then the step FAILs and says why.
    const failed = await w.waitFor(
      "the silent step to fail",
      () => w.state.commentsOn(41).find((c) => c.body.includes("change chain · ❌ failed")),
      60_000,
    );
    expect(failed.body).toContain("sent no report");
    expect(w.state.dispatches.slice(before).map((x) => x.inputs.forge_step)).toEqual(["0", "0"]);
    // The one "job" that took the step (the token used for its input) is cancelled: nobody waits.
    expect(w.state.cancelledRuns).toEqual([9099]);
    const check = w.state.checkRuns.find(
      (c) => c.name === "forge/architect" && c.externalId === runId && c.conclusion,
    );
    expect(check?.conclusion).toBe("failure");
    const journal = openJournal(join(w.root, "home-silent", "journal.db"));
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
