// The App's runner for steps on Actions, at its seams: what it demands of a builder's job (its
// work, pushed and checked), and where the reviewing steps' diff comes from (the App's own
// repositories, never the job). The jobs and the repositories are played by the test; the
// real ones run in test/e2e/actions-steps.test.ts.
import { describe, expect, it } from "vitest";
import { createActionsRunner, type RunWorkPort } from "../../src/app/actions-runner.js";
import type { JobStepResult } from "../../src/app/actions-steps.js";
import type { PriorOutput, StepInput } from "../../src/chain/ports.js";
import type { RunRecord } from "../../src/chain/types.js";
import type { Role } from "../../src/roles/role-names.js";
import { validOutput } from "../roles/output-schema-fixtures.js";

const SHA = "b".repeat(40);
const WORK = { ref: "refs/forge/runs/run-1/work-1-1", sha: SHA };
const run = { id: "run-1", baseSha: "a".repeat(40) } as unknown as RunRecord;

const passed = (role: Role): PriorOutput => ({
  role,
  decision: { role, verdict: "PASS", reasons: [], overridden: false },
  output: null,
});

function setup(job: Partial<JobStepResult>, o: { adopt?: (w: unknown) => Promise<void> } = {}) {
  const calls: string[] = [];
  const handedTo: unknown[] = [];
  const work: RunWorkPort = {
    adopt: async (_r, w) => {
      calls.push(`adopt ${w.sha}`);
      await o.adopt?.(w);
    },
    diff: async (_r, w) => {
      calls.push(`diff ${w?.sha ?? "none"}`);
      return "diff --git a/greet.sh b/greet.sh\n+echo hello!\n";
    },
    ensure: async () => {},
    handed: async () => ({ controls: [], notes: ["from the App"] }),
    take: async (_r, s) => {
      calls.push(`take ${JSON.stringify(s)}`);
    },
  };
  const adopted: Array<{ type: string; data: Record<string, unknown> }> = [];
  const runner = createActionsRunner({
    home: {
      runStep: async () => ({ failures: [], events: [] }),
      finishRun: async () => null as never,
    },
    steps: {
      async runStep(_input, extras) {
        handedTo.push(extras);
        return { failures: [], events: [], ...job };
      },
    },
    work,
    store: {
      latestEvent: async () =>
        adopted.length > 0 ? ({ seq: 1, runId: run.id, at: "", ...adopted[0] } as never) : null,
    },
  });
  const step = (role: Role, prior: PriorOutput[], index = 1): StepInput => ({
    run,
    role,
    index,
    attempt: 1,
    chain: "change",
    task: { title: "t", body: "b" } as never,
    prior,
    answers: [],
    signal: new AbortController().signal,
    progress: () => {},
  });
  return { runner, calls, handedTo, adopted, step };
}

describe("the App's runner for steps on Actions", () => {
  it("takes a passing builder's pushed work and journals it as the run's work", async () => {
    const t = setup({ agentOutput: validOutput("builder"), work: WORK, state: { notes: ["n"] } });
    const r = await t.runner.runStep(t.step("builder", [passed("architect")]));
    expect(r.failures).toEqual([]);
    expect(r.events).toContainEqual({
      type: "actions.work.adopted",
      data: { index: 1, attempt: 1, ...WORK },
    });
    expect(t.calls).toEqual([`take {"notes":["n"]}`, `adopt ${SHA}`]);
    // The builder reviews nothing: no diff is computed for it.
    expect(r.diff).toBeUndefined();
  });

  it("FAILs a passing builder whose job pushed no work, or whose work does not hold", async () => {
    const none = setup({ agentOutput: validOutput("builder") });
    const r1 = await none.runner.runStep(none.step("builder", [passed("architect")]));
    expect(r1.failures).toEqual(["the builder's Actions job reported no pushed work"]);
    const bad = setup(
      { agentOutput: validOutput("builder"), work: WORK },
      {
        adopt: async () => {
          throw new Error("the pushed work does not stand on the run's base");
        },
      },
    );
    const r2 = await bad.runner.runStep(bad.step("builder", [passed("architect")]));
    expect(r2.failures).toEqual(["the pushed work does not stand on the run's base"]);
    expect(r2.events.some((e) => e.type === "actions.work.adopted")).toBe(false);
  });

  it("gives the reviewing steps the diff the App computed from the adopted work", async () => {
    const t = setup({ agentOutput: validOutput("security") });
    t.adopted.push({ type: "actions.work.adopted", data: { ...WORK } });
    const r = await t.runner.runStep(
      t.step("security", [passed("architect"), passed("builder"), passed("reviewer")], 3),
    );
    expect(r.diff).toContain("+echo hello!");
    expect(t.calls).toContain(`diff ${SHA}`);
    // The job was handed the work to review and the App's notes.
    expect(t.handedTo[0]).toEqual({ work: WORK, state: { controls: [], notes: ["from the App"] } });
  });

  it("refuses a step after a passed builder when no work was ever taken", async () => {
    const t = setup({ agentOutput: validOutput("reviewer") });
    const r = await t.runner.runStep(
      t.step("reviewer", [passed("architect"), passed("builder")], 2),
    );
    expect(r.failures).toEqual(["the builder's work was never taken from its Actions job"]);
    expect(t.handedTo).toEqual([]);
  });
});
