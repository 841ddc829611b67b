// The chain engine on the PostgreSQL journal (a real server the test starts), as on SQLite: a
// chain runs to PASS with each step once; a question pauses the run, and the answer and a resume
// continue it — the engine needs nothing of the store but the port.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChainEngine } from "../../src/chain/engine.js";
import { openPgJournal } from "../../src/store/pg-journal.js";
import { changeRun, counterIds, memoryLogger } from "../chain/engine-harness.js";
import { ask, ScriptedRunner } from "../chain/scripted-runner.js";
import { type PostgresServer, startPostgres } from "../harness/postgres.js";

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("forge_engine");
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

function engineOn(schema: string, runner: ScriptedRunner) {
  const store = openPgJournal(url, { schema });
  const engine = createChainEngine({
    store,
    runner,
    clock: { now: () => new Date() },
    logger: memoryLogger(),
    ids: counterIds("pg"),
  });
  return { store, engine };
}

describe("the chain engine on PostgreSQL", () => {
  it("drives a change chain to PASS, each step once, the history in order", async () => {
    const runner = new ScriptedRunner();
    const { store, engine } = engineOn("engine_pass", runner);
    const run = await engine.startRun(changeRun());
    const done = await engine.drive(run.id);
    expect(done.state).toBe("passed");
    expect(runner.calls.map((c) => c.role)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
    ]);
    const events = await store.events(run.id);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(events.filter((e) => e.type === "step.finished")).toHaveLength(4);
    await engine.idle();
    await store.close();
  });

  it("a question pauses the run; the answer and a resume continue it to PASS", async () => {
    const runner = new ScriptedRunner().on("architect", ask("req-1"));
    const { store, engine } = engineOn("engine_pause", runner);
    const run = await engine.startRun(changeRun());
    expect((await engine.drive(run.id)).state).toBe("paused");
    await engine.respond(run.id, {
      requestId: "req-1",
      answer: "the users",
      actor: "alice",
      responseId: "resp-1",
    });
    await engine.resume(run.id, { actor: "alice" });
    expect((await engine.settled(run.id))?.state).toBe("passed");
    expect(runner.callsFor("architect").map((c) => c.attempt)).toEqual([1, 2]);
    expect(runner.callsFor("architect")[1]?.answers).toMatchObject([
      { request: { id: "req-1" }, response: { id: "resp-1", answer: "the users", actor: "alice" } },
    ]);
    await engine.idle();
    await store.close();
  });
});
