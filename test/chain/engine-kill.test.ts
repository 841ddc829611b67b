// R10.1: a real process drives a chain and is killed with SIGKILL mid-step, twice; the parent
// then starts "again" on the same journal: the run finishes and every step PASSed exactly once.
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempDir, tempDir } from "../store/journal-fixtures.js";
import { changeRun, makeEngine } from "./engine-harness.js";
import { killChildAfter } from "./fixtures/kill-child.js";
import { ScriptedRunner } from "./scripted-runner.js";

const CHILD = fileURLToPath(new URL("./fixtures/drive-child.ts", import.meta.url));
const SLEEP_MS = 1000;

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir("forge-kill-");
});
afterEach(() => tmp.cleanup());

/** Start the child; SIGKILL it a random moment after it printed `line`. Resolves its output. */
function killAfter(file: string, line: string): Promise<string[]> {
  // Well inside the step's sleep, so the step row is `running` when the process dies.
  return killChildAfter(CHILD, [file, String(SLEEP_MS)], line, () =>
    Math.floor(Math.random() * (SLEEP_MS / 4)),
  );
}

describe("kill -9 mid-chain", () => {
  it("resumes after each kill; no step lost, none passed twice", async () => {
    const file = tmp.file("journal.db");
    const setup = makeEngine(file, new ScriptedRunner());
    const run = await setup.engine.startRun(changeRun());
    await setup.store.close();

    const first = await killAfter(file, "started builder 1");
    expect(first).toEqual(["started architect 1", "started builder 1"]);
    const second = await killAfter(file, "started reviewer 1");
    expect(second).toEqual(["started builder 2", "started reviewer 1"]);

    const runner = new ScriptedRunner();
    const h = makeEngine(file, runner);
    expect((await h.engine.recover()).map((r) => r.id)).toEqual([run.id]);
    await h.engine.idle();
    expect((await h.store.getRun(run.id))?.state).toBe("passed");
    expect(runner.calls.map((c) => [c.role, c.attempt])).toEqual([
      ["reviewer", 2],
      ["security", 1],
    ]);
    expect(runner.finished).toHaveLength(1);

    const events = await h.store.events(run.id);
    const finished = events.filter((e) => e.type === "step.finished");
    expect(finished.map((e) => [e.data.role, e.data.verdict])).toEqual([
      ["architect", "PASS"],
      ["builder", "PASS"],
      ["reviewer", "PASS"],
      ["security", "PASS"],
    ]);
    const interrupted = events.filter((e) => e.type === "step.interrupted");
    expect(interrupted.map((e) => [e.data.role, e.data.attempt])).toEqual([
      ["builder", 1],
      ["reviewer", 1],
    ]);
    const started = events
      .filter((e) => e.type === "step.started")
      .map((e) => `${e.data.role}#${e.data.attempt}`);
    expect(started).toEqual([
      "architect#1",
      "builder#1",
      "builder#2",
      "reviewer#1",
      "reviewer#2",
      "security#1",
    ]);
    expect(events.filter((e) => e.type === "run.finished")).toHaveLength(1);
    expect(h.store.integrityCheck()).toBe("ok");
    await h.store.close();
  }, 60_000);
});
