/**
 * The App's StepRunner when role steps run on GitHub Actions (R10.2): each step is dispatched
 * to a job (actions-steps.ts); the run's base, its work and its end stay the App's own.
 * - prepareRun measures the base here (the jobs run the repository's setup themselves);
 * - after a builder job, the App fetches the work it pushed, checks it is the reported commit
 *   on the run's base, and journals it as the run's work;
 * - the reviewing steps get the diff the App computes from that work itself, so the secret
 *   rule never depends on what a job says;
 * - finishRun commits the run output on that work and pushes the branch, as locally.
 * Nothing needs a disk shared with the jobs or with other replicas: the work is a ref of the
 * repository, the runner's notes travel in the journal.
 */
import { join } from "node:path";
import type { JournalStore, StepInput, StepResult, StepRunner } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { outputClaims } from "../roles/verdict.js";
import {
  ensureRunWork,
  fetchWork,
  handedState,
  isPushedWork,
  type PushedWork,
  takeHandedState,
  workDiff,
} from "../runner/index.js";
import type { JobExtras, JobStepResult } from "./actions-steps.js";

export const WORK_ADOPTED_EVENT = "actions.work.adopted";

/** The run's work and notes in the App's own repositories (FORGE_HOME/work/<run>). */
export interface RunWorkPort {
  adopt(run: RunRecord, work: PushedWork): Promise<void>;
  diff(run: RunRecord, work: PushedWork | null): Promise<string>;
  ensure(run: RunRecord, work: PushedWork | null): Promise<void>;
  handed(run: RunRecord): Promise<unknown>;
  take(run: RunRecord, state: unknown): Promise<void>;
}

export function runWorkPort(
  forgeHome: string,
  remoteAuth: (run: RunRecord) => Promise<Record<string, string>>,
): RunWorkPort {
  const dir = (run: RunRecord) => join(forgeHome, "work", run.id);
  return {
    adopt: async (run, work) => fetchWork(dir(run), run, work, await remoteAuth(run)),
    diff: async (run, work) => workDiff(dir(run), run, work, await remoteAuth(run)),
    ensure: async (run, work) => ensureRunWork(dir(run), run, work, await remoteAuth(run)),
    handed: (run) => handedState(dir(run)),
    take: (run, state) => takeHandedState(dir(run), state),
  };
}

export function createActionsRunner(o: {
  /** The App's local runner without setup: measures the base, finishes the run. */
  home: StepRunner;
  steps: { runStep(input: StepInput, extras?: JobExtras): Promise<JobStepResult> };
  work: RunWorkPort;
  store: Pick<JournalStore, "latestEvent">;
}): StepRunner {
  async function adoptedWork(runId: string): Promise<PushedWork | null> {
    const e = await o.store.latestEvent(runId, WORK_ADOPTED_EVENT);
    const work = e ? { ref: e.data.ref, sha: e.data.sha } : null;
    return isPushedWork(work) ? work : null;
  }

  async function runStep(input: StepInput): Promise<StepResult> {
    const { run, role } = input;
    const built = input.prior.some((p) => p.role === "builder" && p.decision.verdict === "PASS");
    const work = built ? await adoptedWork(run.id) : null;
    if (built && !work) {
      return { failures: ["the builder's work was never taken from its Actions job"], events: [] };
    }
    const {
      work: reported,
      state,
      ...r
    } = await o.steps.runStep(input, {
      work,
      state: await o.work.handed(run),
    });
    if (state !== undefined) await o.work.take(run, state);
    const failures = [...r.failures];
    const events = [...r.events];
    // A builder that may PASS must have pushed its work, and it must be what the job says.
    if (role === "builder" && failures.length === 0 && outputClaims(role, r.agentOutput).pass) {
      if (!isPushedWork(reported)) {
        failures.push("the builder's Actions job reported no pushed work");
      } else {
        try {
          await o.work.adopt(run, reported);
          events.push({
            type: WORK_ADOPTED_EVENT,
            data: { index: input.index, attempt: input.attempt, ...reported },
          });
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    }
    const reviewing = role === "reviewer" || role === "security";
    return {
      ...r,
      failures,
      events,
      ...(reviewing ? { diff: await o.work.diff(run, work) } : {}),
    };
  }

  return {
    ...(o.home.prepareRun ? { prepareRun: o.home.prepareRun.bind(o.home) } : {}),
    runStep,
    async finishRun(run, steps) {
      // A run that failed before its base was measured has nothing here to finish from.
      if (run.baseSha) await o.work.ensure(run, await adoptedWork(run.id));
      return o.home.finishRun(run, steps);
    },
  };
}
