// Which process drives a run (the `run.driver` event) and a cancel journaled by another
// process, on the real SQLite journal: a second engine on the same file is the other process.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createChainEngine } from "../../src/chain/engine.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { type TempDir, tempDir } from "../store/journal-fixtures.js";
import { changeRun, counterIds, makeEngine, memoryLogger } from "./engine-harness.js";
import { gate, ScriptedRunner } from "./scripted-runner.js";

let tmp: TempDir;
let file: string;
const closers: Array<() => Promise<void>> = [];
beforeEach(() => {
  tmp = tempDir("forge-driver-");
  file = tmp.file("journal.db");
});
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  tmp.cleanup();
});

function engineAs(
  driver: Record<string, unknown> | undefined,
  runner: ScriptedRunner,
  driverAlive?: (record: Record<string, unknown>) => boolean,
) {
  const store = openJournal(file);
  closers.push(() => store.close());
  const engine = createChainEngine({
    store,
    runner,
    clock: { now: () => new Date() },
    logger: memoryLogger(),
    ids: counterIds(),
    ...(driver ? { driver } : {}),
    ...(driverAlive ? { driverAlive } : {}),
  });
  return { store, engine };
}

describe("the run.driver record", () => {
  it("is journaled each time a process starts driving an unfinished run, before its steps", async () => {
    const a = engineAs({ pid: 111, host: "here", command: "forge run" }, new ScriptedRunner());
    const run = await a.engine.startRun(changeRun());
    await a.engine.drive(run.id);
    const types = (await a.store.events(run.id)).map((e) => e.type);
    expect(types.indexOf("run.driver")).toBeGreaterThan(-1);
    expect(types.indexOf("run.driver")).toBeLessThan(types.indexOf("run.started"));
    const rec = await a.store.latestEvent(run.id, "run.driver");
    expect(rec?.data).toMatchObject({ pid: 111, host: "here", command: "forge run" });
    expect(typeof rec?.data.since).toBe("string");
    // A finished run is not claimed again.
    await a.engine.drive(run.id);
    expect((await a.store.eventsOfType(run.id, ["run.driver"])).length).toBe(1);
  });

  it("is not journaled by an engine that was given no identity", async () => {
    const h = makeEngine(file, new ScriptedRunner());
    closers.push(() => h.store.close());
    const run = await h.engine.startRun(changeRun());
    await h.engine.drive(run.id);
    expect(await h.store.latestEvent(run.id, "run.driver")).toBeNull();
  });
});

describe("a cancel journaled by another process", () => {
  it("ends the step this process is running as soon as it cancels again", async () => {
    const hang = gate();
    const a = engineAs({ pid: 1 }, new ScriptedRunner().on("builder", hang.script));
    const run = await a.engine.startRun(changeRun());
    const driving = a.engine.drive(run.id);
    await hang.started;
    // `forge cancel` in another terminal: another engine on the same journal.
    const b = engineAs({ pid: 2 }, new ScriptedRunner());
    expect((await b.engine.cancel(run.id, "forge cancel")).state).toBe("cancelled");
    // The driving process notices (forge run polls the journal) and cancels in its engine:
    // the run is terminal already, yet its running step is aborted.
    await a.engine.cancel(run.id, "cancelled from another process");
    const done = await Promise.race([
      driving,
      new Promise<null>((r) => setTimeout(() => r(null), 5000)),
    ]);
    expect(done?.state).toBe("cancelled");
    const events = (await a.store.events(run.id)).map((e) => e.type);
    expect(events.filter((t) => t === "run.cancelled")).toHaveLength(1);
  });
});

describe("recover after a restart", () => {
  it("leaves alone a run another live process drives, and continues one whose driver is gone", async () => {
    const hang = gate();
    const a = engineAs({ pid: 101, host: "h" }, new ScriptedRunner().on("builder", hang.script));
    const live = await a.engine.startRun(changeRun());
    const driving = a.engine.drive(live.id);
    await hang.started;
    const dead = await a.engine.startRun(changeRun());
    await a.store.transition(dead.id, {
      events: [{ type: "run.driver", data: { pid: 202, host: "h" } }],
    });
    // `forge serve` starting beside a `forge run` (pid 101) that still works.
    const alive = (r: Record<string, unknown>) => r.pid === 101;
    const b = engineAs({ pid: 303, host: "h" }, new ScriptedRunner(), alive);
    const recovered = await b.engine.recover();
    expect(recovered.map((r) => r.id)).toEqual([dead.id]);
    await b.engine.idle();
    expect((await b.store.getRun(dead.id))?.state).toBe("passed");
    expect((await b.store.getRun(live.id))?.state).toBe("running");
    hang.release();
    expect((await driving).state).toBe("passed");
  });
});
