// Fail-closed gates (R3.2–R3.4) of the engine on the real SQLite journal.
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../src/chain/errors.js";
import type { StepInput, StepResult } from "../../src/chain/ports.js";
import { freezeSnapshot } from "../../src/chain/snapshot.js";
import { type TempDir, tempDir } from "../store/journal-fixtures.js";
import { changeRun, makeEngine, SNAPSHOT } from "./engine-harness.js";
import { agentOutput, fail, pass, type Script, ScriptedRunner, throws } from "./scripted-runner.js";

let tmp: TempDir;
let runner: ScriptedRunner;
let h: ReturnType<typeof makeEngine>;

beforeEach(() => {
  tmp = tempDir("forge-engine-");
  runner = new ScriptedRunner();
  h = makeEngine(tmp.file("journal.db"), runner);
});
afterEach(async () => {
  await h.engine.idle();
  await h.store.close();
  tmp.cleanup();
});

const types = async (runId: string) => (await h.store.events(runId)).map((e) => e.type);

describe("a change chain that passes", () => {
  it("runs architect → builder → reviewer → security once each, then finishes once", async () => {
    const created = await h.engine.startRun(changeRun());
    expect(created.state).toBe("queued");
    expect(created.snapshot.digest).toBe(freezeSnapshot(SNAPSHOT).digest);
    const done = await h.engine.drive(created.id);
    expect(done.state).toBe("passed");
    expect(done.baseSha).toBe("a".repeat(40));
    expect(done.branch).toBe("forge/1-greeting");
    const steps = await h.store.getSteps(created.id);
    expect(steps.map((s) => [s.role, s.state, s.attempt, s.decision?.verdict])).toEqual([
      ["architect", "passed", 1, "PASS"],
      ["builder", "passed", 1, "PASS"],
      ["reviewer", "passed", 1, "PASS"],
      ["security", "passed", 1, "PASS"],
    ]);
    expect(runner.calls.map((c) => c.role)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
    ]);
    expect(runner.finished).toEqual([
      { runId: created.id, states: ["passed", "passed", "passed", "passed"] },
    ]);
    // Each step sees the outputs of the steps before it.
    expect(runner.callsFor("reviewer")[0]?.prior.map((p) => p.role)).toEqual([
      "architect",
      "builder",
    ]);
    expect(runner.callsFor("builder")[0]?.prior[0]?.output).toMatchObject({
      summary: expect.stringMatching(/^architect output/),
    });
    const t = await types(created.id);
    expect(t[0]).toBe("run.created");
    expect(t.at(-1)).toBe("run.finished");
    expect(t.filter((x) => x === "step.started")).toHaveLength(4);
    expect(t.filter((x) => x === "feedback.recorded")).toHaveLength(4);
    expect(t.filter((x) => x === "tool.used")).toHaveLength(4);
    const created0 = (await h.store.events(created.id))[0];
    expect(created0?.data.snapshotDigest).toBe(created.snapshot.digest);
  });

  it("runs a review chain as reviewer → security", async () => {
    const run = await h.engine.startRun(changeRun({ chain: "review" }));
    expect((await h.engine.drive(run.id)).state).toBe("passed");
    expect(runner.calls.map((c) => c.role)).toEqual(["reviewer", "security"]);
  });

  it("refuses bad input: unknown chain, budget outside 1–3, non-JSON snapshot", async () => {
    await expect(h.engine.startRun(changeRun({ requestBudget: 0 }))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(h.engine.startRun(changeRun({ requestBudget: 4 }))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(h.engine.startRun(changeRun({ chain: "deploy" as never }))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(
      h.engine.startRun(changeRun({ snapshotContent: { provider: () => "x" } })),
    ).rejects.toThrow(/not plain JSON/);
    expect(await h.store.listRuns()).toEqual([]);
  });
});

describe("a failing step closes the gate", () => {
  it("a FAIL stops the chain: later steps stay queued, the run fails", async () => {
    runner.on("builder", fail("tests fail"));
    const run = await h.engine.startRun(changeRun());
    const done = await h.engine.drive(run.id);
    expect(done.state).toBe("failed");
    const steps = await h.store.getSteps(run.id);
    expect(steps.map((s) => s.state)).toEqual(["passed", "failed", "queued", "queued"]);
    expect(steps[1]?.decision?.reasons).toEqual([
      "tests fail",
      "builder wrote verdict FAIL",
      "the worker reported disposition failed",
    ]);
    expect(runner.calls.map((c) => c.role)).toEqual(["architect", "builder"]);
    expect(runner.finished).toHaveLength(1);
    const finished = (await h.store.events(run.id)).at(-1);
    expect(finished?.type).toBe("run.finished");
    expect(finished?.data.state).toBe("failed");
  });

  it("a runner that throws is a FAIL, never a silent pass", async () => {
    runner.on("architect", throws("agent crashed: exit 139"));
    const run = await h.engine.startRun(changeRun());
    expect((await h.engine.drive(run.id)).state).toBe("failed");
    const [arch] = await h.store.getSteps(run.id);
    expect(arch?.state).toBe("failed");
    expect(arch?.decision?.reasons.join(" ")).toMatch(/the runner failed: agent crashed: exit 139/);
    expect(runner.calls).toHaveLength(1);
  });

  const claimsPass = (i: StepInput) => agentOutput(i.role, "PASS", "done");
  const malformed: Array<[string, Script]> = [
    [
      "lower-case pass",
      (i) => ({ ...(pass(i) as StepResult), agentOutput: { ...claimsPass(i), verdict: "pass" } }),
    ],
    [
      "a PASS decision beside an output saying FAIL",
      (i) =>
        ({
          ...(pass(i) as StepResult),
          agentOutput: agentOutput(i.role, "FAIL", "not done"),
          decision: { role: i.role, verdict: "PASS", reasons: [], overridden: false },
          feedback: { id: "x", role: i.role, task: "x", attempt: 1, disposition: "completed" },
        }) as StepResult,
    ],
    ["no agent output", (i) => ({ ...(pass(i) as StepResult), agentOutput: undefined })],
    ["no failure list", (i) => ({ ...(pass(i) as StepResult), failures: undefined as never })],
    ["failures that are not text", (i) => ({ ...(pass(i) as StepResult), failures: [1] as never })],
    ["a diff that is not text", (i) => ({ ...(pass(i) as StepResult), diff: 1 as never })],
    ["bare text claiming PASS", (i) => ({ ...(pass(i) as StepResult), agentOutput: "PASS" })],
    [
      "an envelope whose run errored",
      (i) => ({
        ...(pass(i) as StepResult),
        agentOutput: {
          type: "result",
          subtype: "success",
          is_error: true,
          structured_output: claimsPass(i),
        },
      }),
    ],
    [
      "a request the journal cannot take",
      (i) => ({
        ...(pass(i) as StepResult),
        agentOutput: agentOutput(i.role, "FAIL", "a question", {
          request: { id: "Not a slug!", kind: "clarification", question: "Who?", context: "" },
        }),
      }),
    ],
    ["null result", () => null as never],
  ];
  it.each(malformed)("%s → FAIL", async (_name, script) => {
    runner.on("architect", script);
    const run = await h.engine.startRun(changeRun());
    expect((await h.engine.drive(run.id)).state).toBe("failed");
    const [arch] = await h.store.getSteps(run.id);
    expect(arch?.state).toBe("failed");
    expect(arch?.decision?.verdict).toBe("FAIL");
    expect(runner.callsFor("builder")).toHaveLength(0);
  });

  it("runner events cannot pose as engine events", async () => {
    runner.on("architect", (i) => ({
      ...(pass(i) as StepResult),
      events: [{ type: "step.finished", data: { verdict: "PASS", index: 3 } }],
    }));
    const run = await h.engine.startRun(changeRun());
    await h.engine.drive(run.id);
    const spoof = (await h.store.events(run.id)).find((e) => e.type === "runner.step.finished");
    expect(spoof?.data.index).toBe(0);
  });

  it("a snapshot edited after the start fails the run before any step runs (R8.5)", async () => {
    const run = await h.engine.startRun(changeRun());
    const raw = new Database(tmp.file("journal.db"));
    const tampered = JSON.stringify({ ...SNAPSHOT, provider: { name: "evil" } });
    raw.prepare("UPDATE runs SET snapshot_json = ? WHERE id = ?").run(tampered, run.id);
    raw.close();
    const done = await h.engine.drive(run.id);
    expect(done.state).toBe("failed");
    expect(runner.calls).toEqual([]);
    const last = (await h.store.events(run.id)).at(-1);
    expect(String(last?.data.reasons)).toMatch(/snapshot does not match its digest/);
  });

  it("a finishRun that throws fails an otherwise passing run", async () => {
    runner.finishRun = async () => {
      throw new Error("push refused");
    };
    const run = await h.engine.startRun(changeRun());
    const done = await h.engine.drive(run.id);
    expect(done.state).toBe("failed");
    const last = (await h.store.events(run.id)).at(-1);
    expect(String(last?.data.reasons)).toMatch(/finishing the run failed: push refused/);
  });
});

describe("parallelism", () => {
  it("drives at most maxParallel runs at once", async () => {
    await h.store.close();
    h = makeEngine(tmp.file("journal.db"), runner, 1);
    const slow: Script = async (i) => {
      await new Promise((r) => setTimeout(r, 5));
      return pass(i);
    };
    runner.on("architect", slow, slow, slow);
    const runs = await Promise.all([1, 2, 3].map(() => h.engine.startRun(changeRun())));
    const done = await Promise.all(runs.map((r) => h.engine.drive(r.id)));
    expect(done.map((r) => r.state)).toEqual(["passed", "passed", "passed"]);
    expect(runner.maxActive).toBe(1);
  });

  it("a second drive of the same run shares the first one", async () => {
    const run = await h.engine.startRun(changeRun());
    const [a, b] = await Promise.all([h.engine.drive(run.id), h.engine.drive(run.id)]);
    expect(a.state).toBe("passed");
    expect(b).toEqual(a);
    expect(runner.calls).toHaveLength(4);
  });
});

describe("observers", () => {
  it("see every journaled event once, in order, and cannot break the chain", async () => {
    await h.store.close();
    const seen: number[] = [];
    const progress: string[] = [];
    const { createChainEngine } = await import("../../src/chain/engine.js");
    const { openJournal } = await import("../../src/store/sqlite-journal.js");
    const store = openJournal(tmp.file("journal.db"));
    const engine = createChainEngine({
      store,
      runner,
      clock: { now: () => new Date() },
      logger: h.logger,
      ids: { newId: () => "obs1" },
      observer: {
        events: (_runId, events) => {
          seen.push(...events.map((e) => e.seq));
          throw new Error("observer bug");
        },
        progress: (_runId, p) => {
          progress.push(`${p.role}:${p.lastTool}`);
          throw new Error("observer bug");
        },
      },
    });
    h = { engine, store, logger: h.logger };
    runner.on("builder", (i) => {
      i.progress({ role: i.role, lastTool: "Bash: npm test" });
      return pass(i);
    });
    const run = await engine.startRun(changeRun());
    expect((await engine.drive(run.id)).state).toBe("passed");
    expect(seen).toEqual((await store.events(run.id)).map((e) => e.seq));
    expect(progress).toEqual(["builder:Bash: npm test"]);
    expect(h.logger.lines.some((l) => l.msg === "chain observer threw")).toBe(true);
  });
});
