// Two `forge serve` replicas of one App on one PostgreSQL journal (a real server the test
// starts), one fake GitHub Enterprise Server on loopback, the real claude binary in bwrap boxes
// on the scripted model. The replicas share the database, FORGE_HOME and the gate secret, as
// docs/scaling.md says to deploy them. Asserted on what the fake GitHub received.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { openPgJournal } from "../../src/store/pg-journal.js";
import { demoRemote } from "../app/demo-remote.js";
import { type FakeGitHubServer, startFakeGitHub } from "../app/fake-github-server.js";
import { createGitHubState, type GitHubState } from "../app/github-state.js";
import { commentCreated, issueLabeled } from "../app/payloads.js";
import {
  type AppCredentials,
  appCredentials,
  type ServeProcess,
  startServeProcess,
} from "../app/serve-process.js";
import { ensureBuilt } from "../harness/build.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { type PostgresServer, startPostgres } from "../harness/postgres.js";
import { waitFor as waitUntil } from "../harness/wait-for.js";

let root: string;
let pgServer: PostgresServer;
let databaseUrl: string;
let state: GitHubState;
let fake: FakeGitHubServer;
let model: ModelServer;
let app: AppCredentials;
let a: ServeProcess;
let b: ServeProcess;
const gateSecret = `${"ab".repeat(16)}${Date.now().toString(16)}`;

function replica(): Promise<ServeProcess> {
  return startServeProcess({
    gheHost: fake.host,
    forgeHome: join(root, "forge-home"),
    modelUrl: model.url,
    app,
    env: { DATABASE_URL: databaseUrl, FORGE_LEASE_MS: "3000", FORGE_GATE_SECRET: gateSecret },
  });
}

const tail = () => [...(a?.logs ?? []), ...(b?.logs ?? [])].slice(-40).map((l) => l.slice(0, 300));
const waitFor = <T>(what: string, fn: () => T | undefined | null | false, ms?: number) =>
  waitUntil(what, fn, tail, ms);

beforeAll(async () => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "forge-replicas-e2e-"));
  pgServer = await startPostgres();
  databaseUrl = await pgServer.createDatabase("forge_replicas_e2e");
  const { gitRoot } = await demoRemote(root);
  state = createGitHubState();
  state.permissions.set("alice", "write");
  fake = await startFakeGitHub({ state, gitRoot });
  model = await startModelServer(demoScript());
  app = appCredentials();
  [a, b] = await Promise.all([replica(), replica()]);
}, 180_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await fake?.close();
  await model?.close();
  await pgServer?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("two forge serve replicas on one PostgreSQL journal", () => {
  it("100 deliveries, each sent to both replicas: each is acted on once", async () => {
    const replies = () =>
      state
        .commentsOn(30)
        .filter((c) => c.body.includes("/forge respond") && !c.body.startsWith("<!--"));
    // The deliveries come from ten installations, as an App serves many. Octokit's throttle
    // spaces one installation's notifying writes (a comment) 3 s apart in each process, so 100
    // replies on a single installation would time that throttle, not the replicas.
    for (let batch = 0; batch < 10; batch++) {
      const sent = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const payload = commentCreated({ author: "alice", number: 30, body: "/forge help" });
          payload.installation = { ...(payload.installation as object), id: 4200 + i };
          const id = `replicas-${batch}-${i}`;
          return Promise.all([
            a.deliver("issue_comment", payload, { id }),
            b.deliver("issue_comment", payload, { id }),
          ]);
        }),
      );
      for (const pair of sent) for (const r of pair) expect(r.status).toBeLessThan(300);
    }
    await waitFor("100 help replies", () => replies().length >= 100);
    // Anything late would show up now.
    await new Promise((r) => setTimeout(r, 3000));
    expect(replies()).toHaveLength(100);
    const handled = (logs: string[]) =>
      logs.filter((l) => l.includes("redelivered webhook: already handled")).length;
    // Every delivery reached both; the one that came second was told it was handled.
    expect(handled(a.logs) + handled(b.logs)).toBe(100);
    for (const r of fake.api) {
      expect(r.problems, `${r.method} ${r.path}`).toEqual([]);
      assertMatchesOpenApi({ method: r.method, path: r.path, body: r.body });
    }
  }, 300_000);

  it("a chain whose replica is killed with -9 mid-step is finished by the other, in the same sticky comment", async () => {
    const slow = demoScript();
    const builder = slow.routes?.find((r) => r.marker.endsWith("builder"));
    if (!builder?.turns[0]) throw new Error("demo script has no builder route");
    builder.turns[0].delayMs = 20_000;
    model.setScript(slow);
    const delivered = await a.deliver("issues", issueLabeled({ sender: "alice", number: 31 }));
    expect(delivered.status).toBeLessThan(300);
    const running = await waitFor("builder running", () =>
      state.commentsOn(31).find((c) => /\| builder \| 🔄 running/.test(c.body)),
    );
    const runId = /forgechain:run:([0-9a-f]{32})/.exec(running.body)?.[1] ?? "";
    expect(runId).not.toBe("");
    a.child.kill("SIGKILL");
    await new Promise((r) => a.child.once("exit", r));
    const killedAt = Date.now();
    model.setScript(demoScript());
    const takeover = await waitFor("the other replica takes the run over", () =>
      b.logs.find((l) => l.includes("recovering unfinished runs") && l.includes(runId)),
    );
    process.stdout.write(
      `replicas e2e: run taken over ${Date.now() - killedAt} ms after kill -9\n`,
    );
    expect(takeover).toContain(runId);
    const gate = await waitFor("forge/gate", () =>
      state.checkRuns.find((c) => c.name === "forge/gate"),
    );
    expect(gate.conclusion).toBe("success");
    const final = await waitFor("final sticky", () =>
      state.commentsOn(31).find((c) => c.body.includes("change chain · ✅ passed")),
    );
    const sticky = state.commentsOn(31).filter((c) => c.body.startsWith("<!-- forgechain:run:"));
    expect(sticky).toHaveLength(1);
    expect(final.body).toMatch(/\| builder \| ✅ passed \(attempt 2\) \| PASS \|/);
    // The check runs too: one per role on the pushed head, whichever replica finished it.
    for (const role of ["architect", "builder", "reviewer", "security", "gate"]) {
      const named = state.checksFor(gate.headSha).filter((c) => c.name === `forge/${role}`);
      expect(named, role).toHaveLength(1);
    }

    // From the journal: the builder's first attempt was A's, its second B's, never at once —
    // B started driving only after A's lease had run out.
    const journal = openPgJournal(databaseUrl);
    try {
      const events = await journal.events(runId);
      const drivers = events.filter((e) => e.type === "run.driver");
      expect(new Set(drivers.map((e) => e.data.pid)).size).toBe(2);
      const started = events.filter((e) => e.type === "step.started" && e.data.index === 1);
      expect(started.map((e) => e.data.attempt)).toEqual([1, 2]);
      const bClaim = drivers.at(-1);
      expect(bClaim?.data.pid).toBe(b.child.pid);
      expect((bClaim?.seq ?? 0) > (started[0]?.seq ?? 0)).toBe(true);
      expect((await journal.getRun(runId))?.state).toBe("passed");
    } finally {
      await journal.close();
    }
  }, 400_000);
});
