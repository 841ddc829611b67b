/**
 * Which branch a change run pushes to, decided when it starts and frozen with its GitHub
 * context (R8.5), so a restart pushes where the comment said.
 *
 * The rule: a new run on an issue updates the branch forgechain last pushed for that issue —
 * and with it the open draft PR — when the branch's head on GitHub is still a head forgechain
 * itself pushed there (the journal records each push). A head nobody recorded means a human
 * pushed commits: those are never overwritten; the run takes the next suffixed branch
 * (`<root>-2`, `-3`, …) and the comment says why. A branch that no longer exists is pushed
 * again under its name.
 *
 * The new run's work sits on the current base, not on the old branch, so its push is no
 * fast-forward: the runner pushes with `--force-with-lease=refs/heads/<branch>:<lease>`, the
 * lease being the head seen here ("" when the branch must not exist yet) — a human push in
 * between makes the push fail instead of losing their commits.
 */
import type { StepRunner } from "../chain/ports.js";
import type { RunEvent, RunRecord } from "../chain/types.js";
import { branchName } from "../runner/index.js";

export interface BranchPlan {
  /** The branch this run pushes to. */
  name: string;
  /** The first branch name; the suffixed ones are built from it. */
  root: string;
  /** The head the branch must still be at when the run pushes; "" = it must not exist. */
  lease: string;
  /** The earlier run whose pushed branch (and draft PR) this run updates. */
  updates?: { runId: string; head: string };
  /** Branches passed over because they hold commits forgechain did not push. */
  skipped?: Array<{ branch: string; head: string }>;
}

/** More suffixes than this means something else is going on: refuse rather than spray. */
const MAX_SUFFIX = 20;
const PUSH_EVENTS = new Set(["run.output", "runner.run.output"]);

export interface PlanInput {
  task: { title: string; number?: number };
  /** Earlier change runs on the same issue of the same repository, newest first. */
  earlier: readonly RunRecord[];
  events(runId: string): Promise<readonly RunEvent[]>;
  /** The commit each named branch is at on GitHub (as just fetched); absent: no branch. */
  heads(branches: readonly string[]): Promise<Map<string, string>>;
}

export class NoBranchLeftError extends Error {
  override readonly name = "NoBranchLeftError";
}

export async function planBranch(input: PlanInput): Promise<BranchPlan> {
  const pushes: Array<{ runId: string; branch: string; head: string }> = [];
  for (const run of input.earlier) {
    if (run.chain !== "change") continue;
    for (const e of await input.events(run.id)) {
      const d = e.data;
      if (!PUSH_EVENTS.has(e.type) || d.pushed !== true) continue;
      if (typeof d.branch === "string" && typeof d.head === "string")
        pushes.push({ runId: run.id, branch: d.branch, head: d.head });
    }
  }
  const newest = input.earlier.find(
    (r) => r.chain === "change" && pushes.some((p) => p.runId === r.id),
  );
  const root =
    (newest && branchPlanOf(newest)?.root) ??
    pushes.find((p) => p.runId === newest?.id)?.branch ??
    branchName(input.task.title, input.task.number, "local");
  const last = pushes.find((p) => p.runId === newest?.id)?.branch;
  const candidates = [
    ...new Set([
      ...(last ? [last] : []),
      root,
      ...Array.from({ length: MAX_SUFFIX - 1 }, (_, i) => `${root}-${i + 2}`),
    ]),
  ];
  const heads = await input.heads(candidates);
  const skipped: Array<{ branch: string; head: string }> = [];
  for (const name of candidates) {
    const head = heads.get(name);
    const ours = head ? pushes.find((p) => p.branch === name && p.head === head) : undefined;
    if (head && !ours) {
      skipped.push({ branch: name, head });
      continue;
    }
    return {
      name,
      root,
      lease: head ?? "",
      ...(ours ? { updates: { runId: ours.runId, head: ours.head } } : {}),
      ...(skipped.length > 0 ? { skipped } : {}),
    };
  }
  throw new NoBranchLeftError(
    `${root} and its ${MAX_SUFFIX - 1} suffixed names all hold commits forgechain did not push`,
  );
}

/** The plan frozen into the run's GitHub context, when there is one. */
export function branchPlanOf(run: RunRecord): BranchPlan | null {
  const github = run.snapshot.content.github as { branch?: unknown } | undefined;
  const p = github?.branch as Partial<BranchPlan> | undefined;
  if (!p || typeof p !== "object") return null;
  if (typeof p.name !== "string" || typeof p.root !== "string" || typeof p.lease !== "string")
    return null;
  return p as BranchPlan;
}

/**
 * What the runner's push is given for `run` (LocalRunnerOptions.branchLease): the `<expect>` of
 * `--force-with-lease=refs/heads/<branch>:<expect>`, or undefined — a plain push — for a run
 * without a plan or one pushing elsewhere than planned.
 */
export function branchLease(run: RunRecord): string | undefined {
  const plan = branchPlanOf(run);
  if (!plan || (run.branch !== null && run.branch !== plan.name)) return undefined;
  return plan.lease;
}

/**
 * The runner names a run's branch itself unless the run carries one (local-runner.ts,
 * branchOf); the engine creates runs without one. This hands the runner the planned name from
 * the frozen snapshot — also after a restart — and the runner journals it with its first step.
 */
export function withPlannedBranch(runner: StepRunner): StepRunner {
  const planned = (run: RunRecord): RunRecord => {
    if (run.branch !== null) return run;
    const plan = branchPlanOf(run);
    return plan ? { ...run, branch: plan.name } : run;
  };
  const prepare = runner.prepareRun?.bind(runner);
  return {
    ...(prepare ? { prepareRun: (input) => prepare({ ...input, run: planned(input.run) }) } : {}),
    runStep: (input) => runner.runStep({ ...input, run: planned(input.run) }),
    finishRun: (run, steps) => runner.finishRun(planned(run), steps),
  };
}
