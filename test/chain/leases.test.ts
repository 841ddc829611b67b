// R10.2 on a real PostgreSQL journal the test starts: engines of several processes ("replicas")
// share it, and each run is driven by one at a time — the lease holder. A replica killed with
// SIGKILL mid-step stops renewing; once its lease expired another takes the run over and
// re-attempts the step; a driver whose lease was taken stops driving.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChainEngine } from "../../src/chain/engine.js";
import type { JournalStore } from "../../src/chain/ports.js";
import { openPgJournal, type PgJournal } from "../../src/store/pg-journal.js";
import { type PostgresServer, startPostgres } from "../harness/postgres.js";
import { changeRun, counterIds, memoryLogger } from "./engine-harness.js";
import { killChildAfter } from "./fixtures/kill-child.js";
import { gate, ScriptedRunner } from "./scripted-runner.js";

const CHILD = fileURLToPath(new URL("./fixtures/lease-child.ts", import.meta.url));
let server: PostgresServer;
let url: string;
let schemas = 0;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("forge_leases");
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

function replica(store: JournalStore, runner: ScriptedRunner, owner: string, ttlMs = 3000) {
  return createChainEngine({
    store,
    runner,
    clock: { now: () => new Date() },
    logger: memoryLogger(),
    ids: counterIds(owner),
    lease: { owner, ttlMs },
  });
}

const stepsStarted = async (store: JournalStore, runId: string) =>
  (await store.events(runId))
    .filter((e) => e.type === "step.started")
    .map((e) => `${e.data.role}#${e.data.attempt}`);

describe("run leases across replicas", () => {
  it("a run another replica drives is left to it: recover and drive do nothing here", async () => {
    const schema = `lease${++schemas}`;
    const [storeA, storeB] = [openPgJournal(url, { schema }), openPgJournal(url, { schema })];
    const held = gate();
    const runnerA = new ScriptedRunner().on("architect", held.script);
    const runnerB = new ScriptedRunner();
    const a = replica(storeA, runnerA, "replica-a");
    const b = replica(storeB, runnerB, "replica-b");
    const run = await a.startRun(changeRun());
    const driving = a.drive(run.id);
    await held.started;
    expect(await b.recover()).toEqual([]);
    expect((await b.drive(run.id)).state).toBe("running");
    held.release();
    expect((await driving).state).toBe("passed");
    expect(runnerB.calls).toEqual([]);
    expect(await stepsStarted(storeA, run.id)).toEqual([
      "architect#1",
      "builder#1",
      "reviewer#1",
      "security#1",
    ]);
    await Promise.all([a.idle(), b.idle()]);
    await Promise.all([storeA.close(), storeB.close()]);
  });

  it("a replica killed mid-step: once its lease expired, another takes the run over", async () => {
    const schema = `lease${++schemas}`;
    const store = openPgJournal(url, { schema });
    const runner = new ScriptedRunner();
    const b = replica(store, runner, "replica-b");
    const run = await b.startRun(changeRun());
    const lines = await killAfter([url, schema, "5000", "3000"], "started builder 1");
    expect(lines).toEqual(["started architect 1", "started builder 1"]);
    const killedAt = Date.now();
    // The dead replica's lease still runs: nobody may drive the run yet.
    expect(await b.recover()).toEqual([]);
    let taken: unknown[] = [];
    while (taken.length === 0 && Date.now() - killedAt < 15_000) {
      await new Promise((r) => setTimeout(r, 200));
      taken = await b.recover();
    }
    expect(taken.map((r) => (r as { id: string }).id)).toEqual([run.id]);
    await b.idle();
    expect((await store.getRun(run.id))?.state).toBe("passed");
    expect(runner.calls.map((c) => `${c.role}#${c.attempt}`)).toEqual([
      "builder#2",
      "reviewer#1",
      "security#1",
    ]);
    const events = await store.events(run.id);
    const passed = events.filter((e) => e.type === "step.finished" && e.data.verdict === "PASS");
    expect(passed.map((e) => e.data.role)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
    ]);
    await store.close();
  }, 60_000);

  it("a driver whose lease was taken stops driving: its step is interrupted, not finished", async () => {
    const schema = `lease${++schemas}`;
    const store = openPgJournal(url, { schema });
    let stolen = false;
    // The journal as replica A sees it, except that its lease can no longer be renewed.
    const seenByA = new Proxy(store, {
      get(target, prop) {
        if (prop === "leaseRun") {
          return (...args: Parameters<PgJournal["leaseRun"]>) =>
            stolen ? Promise.resolve(false) : target.leaseRun(...args);
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const held = gate();
    const runner = new ScriptedRunner().on("architect", held.script);
    const a = replica(seenByA, runner, "replica-a", 600);
    const run = await a.startRun(changeRun());
    const driving = a.drive(run.id);
    await held.started;
    stolen = true;
    const outcome = await driving.catch((e: Error) => e);
    expect(outcome).not.toBeInstanceOf(Error);
    const events = await store.events(run.id);
    expect(events.filter((e) => e.type === "step.interrupted").map((e) => e.data.role)).toEqual([
      "architect",
    ]);
    expect(events.some((e) => e.type === "step.finished")).toBe(false);
    await a.idle();
    await store.close();
  });
});

/** Start the child replica; SIGKILL it soon after it printed `line`. Resolves its output. */
function killAfter(args: string[], line: string): Promise<string[]> {
  return killChildAfter(CHILD, args, line, () => 300);
}
