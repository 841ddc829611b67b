// The branch rule on its own: which branch a new run on an issue pushes to, and the lease its
// push is given. The App-level behaviour (real git, the fake GitHub) is in rerun-branch.test.ts.
import { describe, expect, it } from "vitest";
import {
  type BranchPlan,
  branchLease,
  NoBranchLeftError,
  planBranch,
  withPlannedBranch,
} from "../../src/app/branch-plan.js";
import type { StepInput } from "../../src/chain/ports.js";
import type { RunEvent, RunRecord } from "../../src/chain/types.js";
import { ScriptedRunner } from "../chain/scripted-runner.js";

const ROOT = "forge/7-greet";
const sha = (c: string) => c.repeat(40);

function run(id: string, plan?: BranchPlan, branch: string | null = null): RunRecord {
  return {
    id,
    chain: "change",
    state: "passed",
    task: { title: "Greet", body: "", number: 7 },
    repo: { remote: "x", baseRef: "main" },
    baseSha: null,
    branch,
    snapshot: { digest: "d", content: plan ? { github: { branch: plan } } : {} },
    requestBudget: 1,
    createdAt: "",
    updatedAt: "",
  };
}

function pushed(runId: string, branch: string, head: string): RunEvent {
  return {
    seq: 1,
    runId,
    type: "runner.run.output",
    data: { pushed: true, branch, head },
    at: "",
  };
}

function plan(
  earlier: Array<{ run: RunRecord; events: RunEvent[] }>,
  remote: Record<string, string>,
): Promise<BranchPlan> {
  return planBranch({
    task: { title: "Greet", number: 7 },
    earlier: earlier.map((e) => e.run),
    events: async (id) => earlier.find((e) => e.run.id === id)?.events ?? [],
    heads: async (names) =>
      new Map(Object.entries(remote).filter(([name]) => names.includes(name))),
  });
}

describe("planBranch", () => {
  it("a first run: the issue's branch, which must not exist yet", async () => {
    expect(await plan([], {})).toEqual({ name: ROOT, root: ROOT, lease: "" });
  });

  it("the branch exists and nobody recorded its head: a human's, so the next name", async () => {
    expect(await plan([], { [ROOT]: sha("h") })).toEqual({
      name: `${ROOT}-2`,
      root: ROOT,
      lease: "",
      skipped: [{ branch: ROOT, head: sha("h") }],
    });
  });

  it("the head forgechain pushed is still there: the same branch, leased on that head", async () => {
    const first = { run: run("r1"), events: [pushed("r1", ROOT, sha("a"))] };
    expect(await plan([first], { [ROOT]: sha("a") })).toEqual({
      name: ROOT,
      root: ROOT,
      lease: sha("a"),
      updates: { runId: "r1", head: sha("a") },
    });
  });

  it("any head forgechain pushed to the branch counts, not only the newest", async () => {
    const r2 = { run: run("r2"), events: [pushed("r2", ROOT, sha("b"))] };
    const r1 = { run: run("r1"), events: [pushed("r1", ROOT, sha("a"))] };
    const p = await plan([r2, r1], { [ROOT]: sha("a") });
    expect(p).toMatchObject({ name: ROOT, lease: sha("a"), updates: { runId: "r1" } });
  });

  it("after a suffixed run, continues on the suffixed branch it pushed", async () => {
    const second = {
      run: run("r2", { name: `${ROOT}-2`, root: ROOT, lease: "" }),
      events: [pushed("r2", `${ROOT}-2`, sha("c"))],
    };
    const first = { run: run("r1"), events: [pushed("r1", ROOT, sha("a"))] };
    const p = await plan([second, first], { [ROOT]: sha("h"), [`${ROOT}-2`]: sha("c") });
    expect(p).toMatchObject({ name: `${ROOT}-2`, root: ROOT, lease: sha("c") });
    // …and a human on that one too: the next free name, both named in the plan.
    const q = await plan([second, first], { [ROOT]: sha("h"), [`${ROOT}-2`]: sha("i") });
    expect(q.name).toBe(`${ROOT}-3`);
    expect(q.skipped?.map((s) => s.branch)).toEqual([`${ROOT}-2`, ROOT]);
  });

  it("a run that pushed nothing (failed, review) does not make a branch ours", async () => {
    const failed = { run: run("r1"), events: [] };
    expect((await plan([failed], { [ROOT]: sha("h") })).name).toBe(`${ROOT}-2`);
  });

  it("every name taken by humans: refused with a typed error", async () => {
    const remote = Object.fromEntries(
      [ROOT, ...Array.from({ length: 19 }, (_, i) => `${ROOT}-${i + 2}`)].map((b) => [b, sha("h")]),
    );
    await expect(plan([], remote)).rejects.toBeInstanceOf(NoBranchLeftError);
  });
});

describe("branchLease and withPlannedBranch", () => {
  const p: BranchPlan = { name: `${ROOT}-2`, root: ROOT, lease: sha("c") };

  it("the lease belongs to the planned branch only", () => {
    expect(branchLease(run("r", p))).toBe(sha("c"));
    expect(branchLease(run("r", p, `${ROOT}-2`))).toBe(sha("c"));
    expect(branchLease(run("r", p, "forge/7-elsewhere"))).toBeUndefined();
    expect(branchLease(run("r"))).toBeUndefined();
  });

  it("the runner is handed the planned name while the run has none", async () => {
    const inner = new ScriptedRunner();
    const seen: Array<string | null> = [];
    inner.on("architect", (input: StepInput) => {
      seen.push(input.run.branch);
      return { agentOutput: null, failures: [], events: [] };
    });
    const runner = withPlannedBranch(inner);
    const input = { run: run("r", p), role: "architect" } as unknown as StepInput;
    await runner.runStep(input);
    expect(seen).toEqual([`${ROOT}-2`]);
    const other = { ...input, run: run("r", p, "forge/7-set") } as StepInput;
    inner.on("architect", (i: StepInput) => {
      seen.push(i.run.branch);
      return { agentOutput: null, failures: [], events: [] };
    });
    await runner.runStep(other);
    expect(seen).toEqual([`${ROOT}-2`, "forge/7-set"]);
  });
});
