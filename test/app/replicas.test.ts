// Two replicas on one PostgreSQL journal (a real server the tests start), each with its own
// connections, engine, gatekeeper and run index, as two `forge serve` processes have: a seal
// presented to both at once acts once; a run one replica started is found by the other's
// commands; a run is driven by the replica holding its lease, not by both.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatekeeper } from "../../src/app/gatekeeper.js";
import { githubContextOf, RunIndex } from "../../src/app/run-context.js";
import { createChainEngine } from "../../src/chain/engine.js";
import type { JournalStore } from "../../src/chain/ports.js";
import { createSealer } from "../../src/seal/index.js";
import { openPgJournal } from "../../src/store/pg-journal.js";
import { changeRun, counterIds, memoryLogger } from "../chain/engine-harness.js";
import { ask, ScriptedRunner } from "../chain/scripted-runner.js";
import { type PostgresServer, startPostgres } from "../harness/postgres.js";

let server: PostgresServer;
let url: string;
let schemas = 0;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("forge_replicas");
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const github = {
  installationId: 42,
  owner: "acme",
  repo: "widgets",
  fullName: "acme/widgets",
  issueNumber: 7,
  trigger: { event: "issues.labeled", delivery: "d-1", actor: "alice" },
};

function replica(schema: string, name: string, runner: ScriptedRunner, key: Buffer) {
  const store = openPgJournal(url, { schema });
  const clock = { now: () => new Date() };
  const engine = createChainEngine({
    store,
    runner,
    clock,
    logger: memoryLogger(),
    ids: counterIds(name),
    lease: { owner: name, ttlMs: 3000 },
  });
  const changes: string[] = [];
  const gatekeeper = createGatekeeper({
    store,
    engine,
    sealer: createSealer({ key, clock }),
    logger: memoryLogger(),
    onChange: (runId) => changes.push(runId),
  });
  return { store, engine, gatekeeper, index: new RunIndex(store, { shared: true }) };
}

async function pausedRun(store: JournalStore, a: ReturnType<typeof replica>) {
  const run = await a.engine.startRun(
    changeRun({ snapshotContent: { ...changeRun().snapshotContent, github } }),
  );
  expect((await a.engine.drive(run.id)).state).toBe("paused");
  return (await store.getRun(run.id)) ?? run;
}

describe("replicas on one PostgreSQL journal", () => {
  it("the same seal presented to both replicas at once is acted on once", async () => {
    const schema = `rep${++schemas}`;
    const key = randomBytes(32);
    const runner = new ScriptedRunner().on("architect", ask("q1"));
    const [a, b] = [replica(schema, "a", runner, key), replica(schema, "b", runner, key)];
    const run = await pausedRun(a.store, a);
    const sealed = a.gatekeeper.seal({
      gate: "respond",
      runId: run.id,
      actor: "alice",
      repo: "acme/widgets",
      requestId: "q1",
      answer: "the users",
    });
    const outcomes = await Promise.all([a.gatekeeper.act(sealed), b.gatekeeper.act(sealed)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.find((o) => !o.ok)?.message).toContain("the seal was already used");
    expect(await b.store.listResponses(run.id)).toHaveLength(1);
    const refused = (await a.store.events(run.id)).filter((e) => e.type === "seal.refused");
    expect(refused.map((e) => e.data.reason)).toEqual(["the seal was already used"]);
    await Promise.all([a.engine.idle(), b.engine.idle()]);
    await Promise.all([a.store.close(), b.store.close()]);
  });

  it("a run one replica started is found by the other's index, with the PR it opened later", async () => {
    const schema = `rep${++schemas}`;
    const key = randomBytes(32);
    const runner = new ScriptedRunner().on("architect", ask("q1"));
    const [a, b] = [replica(schema, "a", runner, key), replica(schema, "b", runner, key)];
    await b.index.rebuild();
    expect(await b.index.runsOn("acme/widgets", 7)).toEqual([]);
    const run = await pausedRun(a.store, a);
    const ctx = githubContextOf(run);
    if (ctx) a.index.add(run, ctx);
    expect((await b.index.runsOn("acme/widgets", 7)).map((r) => r.id)).toEqual([run.id]);
    // The PR a change chain opens is journaled; the other replica's `/forge` on the PR finds it.
    expect(await b.index.runsOn("acme/widgets", 12)).toEqual([]);
    await a.store.transition(run.id, {
      events: [{ type: "github.pull_request", data: { number: 12, nodeId: "PR_12" } }],
    });
    expect((await b.index.runsOn("acme/widgets", 12)).map((r) => r.id)).toEqual([run.id]);
    await Promise.all([a.engine.idle(), b.engine.idle()]);
    await Promise.all([a.store.close(), b.store.close()]);
  });

  it("a run is driven by the replica holding its lease; the other's drive leaves it alone", async () => {
    const schema = `rep${++schemas}`;
    const key = randomBytes(32);
    const runner = new ScriptedRunner();
    const [a, b] = [replica(schema, "a", runner, key), replica(schema, "b", runner, key)];
    const run = await a.engine.startRun(changeRun());
    // Both are told to drive it at once (a delivery each, a resume on each, a sweep).
    const [x, y] = await Promise.all([a.engine.drive(run.id), b.engine.drive(run.id)]);
    await Promise.all([a.engine.idle(), b.engine.idle()]);
    expect([x.state, y.state].sort()).toContain("passed");
    expect((await a.store.getRun(run.id))?.state).toBe("passed");
    expect(runner.calls.map((c) => c.role)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
    ]);
    const started = (await a.store.events(run.id)).filter((e) => e.type === "step.started");
    expect(started).toHaveLength(4);
    await Promise.all([a.store.close(), b.store.close()]);
  });

  it("a cancel on one replica stops the step the other is running, within a third of the lease", async () => {
    const schema = `rep${++schemas}`;
    const key = randomBytes(32);
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    // The architect's step runs until its signal says stop, as a boxed agent does.
    const runner = new ScriptedRunner().on("architect", async (input) => {
      started();
      await new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve()));
      return { failures: ["stopped"], events: [] };
    });
    const [a, b] = [replica(schema, "a", runner, key), replica(schema, "b", runner, key)];
    const run = await a.engine.startRun(changeRun());
    const driven = a.engine.drive(run.id);
    await running;
    await b.engine.cancel(run.id, "cancelled by @alice with /forge cancel");
    const done = await driven;
    expect(done.state).toBe("cancelled");
    expect(runner.calls.map((c) => c.role)).toEqual(["architect"]);
    await Promise.all([a.engine.idle(), b.engine.idle()]);
    await Promise.all([a.store.close(), b.store.close()]);
  }, 20_000);
});
