// The setup phase (StepRunner.prepareRun) on the real SQLite journal: once, before the first
// step, journaled as its own phase; a failed setup fails the run before any agent starts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunPreparation } from "../../src/chain/ports.js";
import type { RunRecord } from "../../src/chain/types.js";
import { type TempDir, tempDir } from "../store/journal-fixtures.js";
import { changeRun, makeEngine } from "./engine-harness.js";
import { gate, ScriptedRunner } from "./scripted-runner.js";

class SetupRunner extends ScriptedRunner {
  readonly prepared: string[] = [];
  constructor(
    private readonly outcome: (run: RunRecord) => RunPreparation | Promise<RunPreparation>,
  ) {
    super();
  }
  async prepareRun({ run }: { run: RunRecord }): Promise<RunPreparation> {
    this.prepared.push(run.id);
    return this.outcome(run);
  }
}

let tmp: TempDir;
const opened: Array<ReturnType<typeof makeEngine>> = [];
beforeEach(() => {
  tmp = tempDir("forge-setup-");
});
afterEach(async () => {
  for (const h of opened.splice(0)) await h.store.close();
  tmp.cleanup();
});

function engine(runner: ScriptedRunner) {
  const h = makeEngine(tmp.file("journal.db"), runner);
  opened.push(h);
  return h;
}

const ok: RunPreparation = {
  ok: true,
  reasons: [],
  events: [{ type: "setup.finished", data: { ok: true, results: ["node_modules"] } }],
  runPatch: { baseSha: "b".repeat(40) },
};

describe("the setup phase", () => {
  it("runs once, before the first step, journaled as its own phase", async () => {
    const runner = new SetupRunner(() => ok);
    const h = engine(runner);
    const run = await h.engine.startRun(changeRun());
    expect((await h.engine.drive(run.id)).state).toBe("passed");
    expect(runner.prepared).toEqual([run.id]);
    const types = (await h.store.events(run.id)).map((e) => e.type);
    const at = (t: string) => types.indexOf(t);
    expect(at("run.setup.started")).toBeGreaterThan(at("run.started"));
    expect(at("setup.finished")).toBeGreaterThan(at("run.setup.started"));
    expect(at("run.setup.finished")).toBeGreaterThan(at("setup.finished"));
    expect(at("step.started")).toBeGreaterThan(at("run.setup.finished"));
  });

  it("a failed setup fails the run before any step starts, saying why", async () => {
    const runner = new SetupRunner(() => ({
      ok: false,
      reasons: ["setup command failed: npm ci", "npm ERR! missing package-lock.json"],
      events: [{ type: "setup.finished", data: { ok: false } }],
    }));
    const h = engine(runner);
    const run = await h.engine.startRun(changeRun());
    const final = await h.engine.drive(run.id);
    expect(final.state).toBe("failed");
    expect(runner.calls).toEqual([]);
    const finished = (await h.store.events(run.id)).find((e) => e.type === "run.finished");
    expect(finished?.data.reasons).toEqual([
      "setup failed",
      "setup command failed: npm ci",
      "npm ERR! missing package-lock.json",
    ]);
    expect((await h.store.getSteps(run.id)).every((s) => s.state === "queued")).toBe(true);
  });

  it("a runner that throws in setup fails the run, it does not crash the engine", async () => {
    const h = engine(new SetupRunner(() => Promise.reject(new Error("disk full"))));
    const run = await h.engine.startRun(changeRun());
    const final = await h.engine.drive(run.id);
    expect(final.state).toBe("failed");
    const finished = (await h.store.events(run.id)).find((e) => e.type === "run.finished");
    expect(String(finished?.data.reasons)).toContain("the setup phase failed: disk full");
  });

  it("is not run again for a run whose steps have started (a restart mid-chain)", async () => {
    const hang = gate();
    const first = new SetupRunner(() => ok).on("builder", hang.script);
    const a = engine(first);
    const run = await a.engine.startRun(changeRun());
    void a.engine.drive(run.id);
    await hang.started;
    // "Restart": a new engine on the same journal while the builder's step is still running.
    const second = new SetupRunner(() => ok);
    const b = engine(second);
    await b.engine.recover();
    await b.engine.idle();
    expect((await b.store.getRun(run.id))?.state).toBe("passed");
    expect(first.prepared).toEqual([run.id]);
    expect(second.prepared).toEqual([]);
    hang.release();
    // The first engine's step ends and is judged after the release: the journal stays open.
    await a.engine.idle();
  });
});
