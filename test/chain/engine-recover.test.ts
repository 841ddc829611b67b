// Restart, cancel and stop (R10.1) on the real SQLite journal: a second engine on the same file
// stands in for the restarted process.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempDir, tempDir } from "../store/journal-fixtures.js";
import { changeRun, makeEngine } from "./engine-harness.js";
import { ask, gate, ScriptedRunner } from "./scripted-runner.js";

let tmp: TempDir;
let file: string;
const opened: Array<ReturnType<typeof makeEngine>> = [];

function engine(runner: ScriptedRunner) {
  const h = makeEngine(file, runner);
  opened.push(h);
  return h;
}

beforeEach(() => {
  tmp = tempDir("forge-recover-");
  file = tmp.file("journal.db");
});
afterEach(async () => {
  for (const h of opened.splice(0)) await h.store.close();
  tmp.cleanup();
});

const stepStates = async (h: ReturnType<typeof makeEngine>, runId: string) =>
  (await h.store.getSteps(runId)).map((s) => [s.role, s.state, s.attempt]);

describe("recover after a crash", () => {
  it("re-attempts the step that was running as attempt 2 and finishes; the dead attempt cannot write", async () => {
    const hang = gate();
    const first = new ScriptedRunner().on("builder", hang.script);
    const a = engine(first);
    const run = await a.engine.startRun(changeRun());
    const aDrive = a.engine.drive(run.id);
    await hang.started;
    expect(await stepStates(a, run.id)).toContainEqual(["builder", "running", 1]);

    // "Restart": a new engine on the same file while the old one's step is still running.
    const second = new ScriptedRunner();
    const b = engine(second);
    const resumed = await b.engine.recover();
    expect(resumed.map((r) => r.id)).toEqual([run.id]);
    await b.engine.idle();
    expect((await b.store.getRun(run.id))?.state).toBe("passed");
    expect(await stepStates(b, run.id)).toEqual([
      ["architect", "passed", 1],
      ["builder", "passed", 2],
      ["reviewer", "passed", 1],
      ["security", "passed", 1],
    ]);
    expect(second.calls.map((c) => [c.role, c.attempt])).toEqual([
      ["builder", 2],
      ["reviewer", 1],
      ["security", 1],
    ]);
    const events = await b.store.events(run.id);
    const interrupted = events.filter((e) => e.type === "step.interrupted");
    expect(interrupted.map((e) => [e.data.role, e.data.attempt])).toEqual([["builder", 1]]);

    // The old process's attempt comes back late: refused, nothing written.
    hang.release();
    expect((await aDrive).state).toBe("passed");
    expect(a.logger.lines.some((l) => l.msg === "transition lost a race")).toBe(true);
    expect(await b.store.events(run.id)).toEqual(events);
    const passes = events.filter((e) => e.type === "step.finished" && e.data.verdict === "PASS");
    expect(passes.map((e) => e.data.role)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
    ]);
    expect(second.finished).toHaveLength(1);
    expect(first.finished).toHaveLength(0);
  });

  it("fails a step that was interrupted at its last attempt instead of running a fifth", async () => {
    const a = engine(new ScriptedRunner());
    const run = await a.engine.startRun(changeRun());
    await a.store.transition(run.id, {
      run: { state: "running" },
      step: { index: 0, patch: { state: "running", attempt: 4 } },
      events: [{ type: "test.setup", data: {} }],
    });
    const runner = new ScriptedRunner();
    const b = engine(runner);
    await b.engine.recover();
    await b.engine.idle();
    expect((await b.store.getRun(run.id))?.state).toBe("failed");
    const [arch] = await b.store.getSteps(run.id);
    expect(arch?.state).toBe("failed");
    expect(arch?.decision?.reasons.join(" ")).toMatch(/no attempts left \(4 of 4 used\)/);
    expect(runner.calls).toEqual([]);
  });

  it("keeps paused runs paused, drives queued ones, leaves finished ones alone", async () => {
    const a = engine(new ScriptedRunner().on("architect", ask("req-1")));
    const paused = await a.engine.startRun(changeRun());
    await a.engine.drive(paused.id);
    const queued = await a.engine.startRun(changeRun());
    const finished = await a.engine.startRun(changeRun());
    await a.engine.drive(finished.id);
    // The question was answered before the crash: still no automatic retry.
    await a.engine.respond(paused.id, {
      requestId: "req-1",
      answer: "users",
      actor: "a",
      responseId: "r1",
    });

    const runner = new ScriptedRunner();
    const b = engine(runner);
    const resumed = await b.engine.recover();
    expect(resumed.map((r) => r.id)).toEqual([queued.id]);
    await b.engine.idle();
    expect((await b.store.getRun(paused.id))?.state).toBe("paused");
    expect((await b.store.getRun(queued.id))?.state).toBe("passed");
    expect(new Set(runner.calls.map((c) => c.runId))).toEqual(new Set([queued.id]));
  });

  it("re-pauses a resumed run whose question is still open (crash between resume and run)", async () => {
    const a = engine(new ScriptedRunner().on("architect", ask("req-1")));
    const run = await a.engine.startRun(changeRun());
    await a.engine.drive(run.id);
    // Only a crash (or a bug) leaves this: running, step blocked, request open.
    await a.store.transition(run.id, {
      run: { state: "running" },
      events: [{ type: "test.setup", data: {} }],
    });
    const runner = new ScriptedRunner();
    const b = engine(runner);
    await b.engine.recover();
    await b.engine.idle();
    expect((await b.store.getRun(run.id))?.state).toBe("paused");
    expect(runner.calls).toEqual([]);
  });
});

describe("cancel", () => {
  it("aborts the running step, fails it, keeps later steps queued and skips finishRun", async () => {
    const hang = gate();
    const runner = new ScriptedRunner().on("builder", hang.script);
    const h = engine(runner);
    const run = await h.engine.startRun(changeRun());
    const driving = h.engine.drive(run.id);
    await hang.started;
    const cancelled = await h.engine.cancel(run.id, "user pressed Ctrl-C");
    expect(cancelled.state).toBe("cancelled");
    const done = await driving;
    expect(done.state).toBe("cancelled");
    expect(await stepStates(h, run.id)).toEqual([
      ["architect", "passed", 1],
      ["builder", "failed", 1],
      ["reviewer", "queued", 0],
      ["security", "queued", 0],
    ]);
    const types = (await h.store.events(run.id)).map((e) => e.type);
    expect(types.filter((t) => t === "run.cancelled")).toHaveLength(1);
    // The builder's late return (it saw its signal abort) added no verdict of its own.
    expect(types.filter((t) => t === "step.finished")).toHaveLength(2);
    const builder = (await h.store.getSteps(run.id))[1];
    expect(builder?.decision?.reasons).toEqual([
      "the run was cancelled while the step ran: user pressed Ctrl-C",
    ]);
    expect(runner.finished).toEqual([]);
  });

  it("fails a step left running by a dead process when the run is cancelled", async () => {
    const a = engine(new ScriptedRunner());
    const run = await a.engine.startRun(changeRun());
    await a.store.transition(run.id, {
      run: { state: "running" },
      step: { index: 0, patch: { state: "running", attempt: 1 } },
      events: [{ type: "test.setup", data: {} }],
    });
    const b = engine(new ScriptedRunner());
    expect((await b.engine.cancel(run.id, "abandon")).state).toBe("cancelled");
    const [arch] = await b.store.getSteps(run.id);
    expect(arch?.state).toBe("failed");
    expect(arch?.decision?.reasons).toEqual(["the run was cancelled while the step ran: abandon"]);
    expect((await b.engine.recover()).map((r) => r.id)).toEqual([]);
  });

  it("does not change a terminal run", async () => {
    const h = engine(new ScriptedRunner());
    const run = await h.engine.startRun(changeRun());
    await h.engine.drive(run.id);
    const before = await h.store.events(run.id);
    expect((await h.engine.cancel(run.id, "too late")).state).toBe("passed");
    expect(await h.store.events(run.id)).toEqual(before);
  });

  it("cancels a queued and a paused run", async () => {
    const h = engine(new ScriptedRunner().on("architect", ask("req-1")));
    const queued = await h.engine.startRun(changeRun());
    expect((await h.engine.cancel(queued.id, "no")).state).toBe("cancelled");
    expect((await h.engine.drive(queued.id)).state).toBe("cancelled");
    const paused = await h.engine.startRun(changeRun());
    await h.engine.drive(paused.id);
    expect((await h.engine.cancel(paused.id, "no")).state).toBe("cancelled");
  });
});

describe("stopping a drive", () => {
  it("an aborted drive interrupts the step without a verdict; the next drive re-attempts it", async () => {
    const hang = gate();
    const h = engine(new ScriptedRunner().on("architect", hang.script));
    const run = await h.engine.startRun(changeRun());
    const stop = new AbortController();
    const driving = h.engine.drive(run.id, { signal: stop.signal });
    await hang.started;
    stop.abort();
    expect((await driving).state).toBe("running");
    expect(await stepStates(h, run.id)).toContainEqual(["architect", "queued", 1]);
    expect((await h.engine.drive(run.id)).state).toBe("passed");
    expect((await h.store.getSteps(run.id))[0]?.attempt).toBe(2);
  });
});
