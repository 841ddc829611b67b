/**
 * Where a run lives on GitHub. The context is frozen into the run's snapshot when the run
 * starts (R8.5: provenance), so it is in the journal with the run itself — a restarted
 * process, the reporter and the gatekeeper all read it from there, never from a payload.
 * The draft PR a change chain opens later is journaled as a `github.pull_request` event.
 */
import type { JournalStore } from "../chain/ports.js";
import type { RunEvent, RunRecord, RunState } from "../chain/types.js";
import type { BranchPlan } from "./branch-plan.js";

export interface GitHubRunContext {
  installationId: number;
  owner: string;
  repo: string;
  fullName: string;
  /** The issue or pull request the run belongs to (its sticky comment lives there). */
  issueNumber: number;
  /** Review chains: the PR and the head under review, from the start. */
  pull?: { number: number; nodeId: string; headSha: string };
  trigger: { event: string; delivery: string; actor: string };
  /** Change chains: the branch the run pushes to, chosen at its start (branch-plan.ts). */
  branch?: BranchPlan;
}

export const PULL_EVENT = "github.pull_request";
/** A job or drive that failed for this run (job-failure.ts); the sticky comment shows it. */
export const FAILURE_EVENT = "app.failure";

export function githubContextOf(run: RunRecord): GitHubRunContext | null {
  const g = run.snapshot.content.github as Partial<GitHubRunContext> | undefined;
  if (!g || typeof g !== "object") return null;
  if (typeof g.installationId !== "number" || typeof g.owner !== "string") return null;
  if (typeof g.repo !== "string" || typeof g.issueNumber !== "number") return null;
  return g as GitHubRunContext;
}

/** The PR a change chain opened (journaled), or the review chain's own PR. */
export function pullOf(
  ctx: GitHubRunContext,
  events: readonly RunEvent[],
): { number: number; nodeId: string } | null {
  if (ctx.pull) return { number: ctx.pull.number, nodeId: ctx.pull.nodeId };
  const e = [...events].reverse().find((x) => x.type === PULL_EVENT);
  if (!e) return null;
  const { number, nodeId } = e.data as { number?: unknown; nodeId?: unknown };
  return typeof number === "number" && typeof nodeId === "string" ? { number, nodeId } : null;
}

interface Entry {
  runId: string;
  fullName: string;
  numbers: Set<number>;
  createdAt: string;
  /** A change chain's PR is journaled when it opens: looked for until the run ended. */
  pullKnown: boolean;
  ended: boolean;
}

const ENDED: ReadonlySet<RunState> = new Set(["passed", "failed", "cancelled"]);

/**
 * Which runs belong to which issue or PR of which repository: for commands without a run id
 * (`/forge resume`), for superseding a PR's review, and for refusing a second change chain
 * on one issue. In memory, rebuilt from the journal at start. `shared`: other processes
 * (replicas on one database) start runs and open their PRs too, so every lookup first reads
 * what the journal gained since — a command may reach any replica.
 */
export class RunIndex {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: JournalStore,
    private readonly options: { shared?: boolean } = {},
  ) {}

  async rebuild(): Promise<void> {
    for (const run of await this.store.listRuns()) await this.learn(run);
  }

  /** Adds a run the index does not know, and a PR its change chain opened since. */
  private async learn(run: RunRecord): Promise<void> {
    let entry = this.entries.get(run.id);
    if (!entry) {
      const ctx = githubContextOf(run);
      if (!ctx) return;
      entry = this.add(run, ctx);
    }
    if (entry.pullKnown || entry.ended) return;
    entry.ended = ENDED.has(run.state);
    const ctx = githubContextOf(run);
    const pull = ctx ? pullOf(ctx, await this.store.events(run.id)) : null;
    if (pull) this.addNumber(run.id, pull.number);
  }

  add(run: RunRecord, ctx: GitHubRunContext): Entry {
    const numbers = new Set([ctx.issueNumber]);
    if (ctx.pull) numbers.add(ctx.pull.number);
    const entry: Entry = {
      runId: run.id,
      fullName: ctx.fullName,
      numbers,
      createdAt: run.createdAt,
      pullKnown: Boolean(ctx.pull),
      ended: false,
    };
    this.entries.set(run.id, entry);
    return entry;
  }

  addNumber(runId: string, number: number): void {
    const entry = this.entries.get(runId);
    if (!entry) return;
    entry.numbers.add(number);
    entry.pullKnown = true;
  }

  /** Runs on this issue/PR, newest first, optionally only in the given states. */
  async runsOn(fullName: string, number: number, states?: RunState[]): Promise<RunRecord[]> {
    if (this.options.shared) await this.rebuild();
    const ids = [...this.entries.values()]
      .filter((e) => e.fullName === fullName && e.numbers.has(number))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .map((e) => e.runId);
    const runs: RunRecord[] = [];
    for (const id of ids) {
      const run = await this.store.getRun(id);
      if (run && (!states || states.includes(run.state))) runs.push(run);
    }
    return runs;
  }
}

export const ACTIVE_STATES: RunState[] = ["queued", "running", "paused"];
