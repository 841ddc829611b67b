/**
 * Role steps run by GitHub Actions jobs (R10.2), the App's side: a step is journaled as
 * dispatched, the repository's forgechain workflow is started by `workflow_dispatch` (run id,
 * step index and attempt as inputs — nothing secret), and the step waits for the job's report,
 * which the report route (actions-routes.ts) accepts and journals. What the job measured comes
 * back as a runner's result: the engine judges it like a local runner's. A job that never
 * reports is dispatched again; after that the step FAILs, saying so.
 *
 * Waiting reads the journal, not memory: the report may reach another replica than the one
 * that dispatched the step.
 */
import { z } from "zod";
import type { Clock, JournalStore, StepInput, StepResult } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import type { Installations } from "./installations.js";
import { githubContextOf } from "./run-context.js";
import type { DispatchedStep } from "./step-reports.js";

export const DISPATCHED_EVENT = "actions.step.dispatched";
export const REPORTED_EVENT = "actions.step.reported";
export const PICKED_EVENT = "actions.step.picked";
export const REPORT_REFUSED_EVENT = "actions.report.refused";
export const DEFAULT_WORKFLOW = ".github/workflows/forgechain-steps.yml";

export interface ActionsStepsOptions {
  store: JournalStore;
  installations: Pick<Installations, "port">;
  clock: Clock;
  /** The repository's forgechain workflow (the packaged Action in step mode). */
  workflowPath?: string;
  /** How long a dispatched job may take to report (default 60 min). */
  reportTimeoutMs?: number;
  /** How often the journal is read for the report (default 1 s). */
  pollMs?: number;
  /** How many times a step whose job never reports is dispatched before it FAILs (default 2). */
  dispatches?: number;
}

/**
 * What a job may send as its step's result: the agent's raw output, its FAIL reasons, the facts
 * its runner journals (never the engine's own kinds of event), the builder's pushed work and
 * the runner's notes for the next job. The work and the notes are checked by the caller.
 */
const JobResult = z.object({
  agentOutput: z.unknown().optional(),
  failures: z.array(z.string().max(4000)).max(100),
  events: z
    .array(
      z.object({
        type: z
          .string()
          .regex(/^[a-z][a-z_]*(?:\.[a-z_]+)*$/)
          .max(80)
          .refine((t) => JOB_EVENT_KINDS.has(t), "not a kind of fact a step's runner journals"),
        data: z.record(z.string(), z.unknown()),
      }),
    )
    .max(200)
    .default([]),
  work: z.unknown().optional(),
  state: z.unknown().optional(),
});
/**
 * The facts a runner journals of a step (local-runner.ts and what it calls): a job may send
 * these and no other kind — never one the engine, the gate or the App writes, which they read
 * back to decide (a forged `step.finished` or `protected.touched` must not exist).
 */
const JOB_EVENT_KINDS: ReadonlySet<string> = new Set([
  "egress.mode",
  "egress.denied",
  "setup.finished",
  "step.prepared",
  "step.wrote",
  "step.transcript",
  "step.timings",
  "builder.imported",
  "verify.finished",
  "controls.finished",
  "role_gate.violation",
]);

/** A job's result as the App took it: a runner's result, and what the job handed on. */
export type JobStepResult = StepResult & { work?: unknown; state?: unknown };

/** What the App hands a job beside the engine's input: the work to review, the runner's notes. */
export interface JobExtras {
  work: { ref: string; sha: string } | null;
  state: unknown;
}

export function createActionsSteps(o: ActionsStepsOptions): {
  runStep(input: StepInput, extras?: JobExtras): Promise<JobStepResult>;
} {
  const workflowPath = o.workflowPath ?? DEFAULT_WORKFLOW;
  const timeoutMs = o.reportTimeoutMs ?? 60 * 60_000;
  const pollMs = o.pollMs ?? 1000;
  const dispatches = o.dispatches ?? 2;

  async function runStep(input: StepInput, extras?: JobExtras): Promise<JobStepResult> {
    const { run, index, attempt, role } = input;
    const ctx = githubContextOf(run);
    if (!ctx)
      return { failures: ["the run names no GitHub repository to run its step in"], events: [] };
    // Dispatched on the base branch: the workflow file that runs is the one the repository
    // reviewed, not one a pushed branch brought (the token check pins this ref too).
    const ref = run.repo.baseRef;
    const dispatched: DispatchedStep & { index: number; attempt: number; role: string } = {
      repository: ctx.fullName,
      workflowPath,
      ref: `refs/heads/${ref}`,
      index,
      attempt,
      role,
    };
    // What the job needs to run the step, as the engine gave it: read by the job through the
    // input route (any replica), never put in the dispatch's inputs (they show in the UI).
    const job: StepJobInput = {
      chain: input.chain,
      role,
      task: input.task,
      prior: input.prior,
      answers: input.answers,
      ...(extras ? { work: extras.work, state: extras.state } : {}),
    };
    const port = await o.installations.port(ctx.installationId);
    // A job that never reports (lost dispatch, no runner picked it up, the job crashed) is an
    // outage, not the agent's verdict: the step is dispatched again before it FAILs. A late
    // report of the first job is as good as the second's: both are for this attempt, and only
    // one is accepted.
    let report: Awaited<ReturnType<typeof waitForReport>> = "timeout";
    for (let sent = 1; sent <= dispatches && report === "timeout"; sent++) {
      await o.store.transition(run.id, {
        events: [{ type: DISPATCHED_EVENT, data: { ...dispatched, dispatch: sent, job } }],
      });
      await port.dispatchWorkflow({
        owner: ctx.owner,
        repo: ctx.repo,
        workflowPath,
        ref,
        inputs: { forge_run: run.id, forge_step: String(index), forge_attempt: String(attempt) },
      });
      report = await waitForReport(o.store, run.id, index, attempt, {
        deadline: o.clock.now().getTime() + timeoutMs,
        pollMs,
        clock: o.clock,
        signal: input.signal,
      });
    }
    if (report === "cancelled") {
      const stopped = await cancelJob(o.store, port, ctx, input);
      return { failures: ["the step was cancelled", ...(stopped ? [stopped] : [])], events: [] };
    }
    if (report === "timeout") {
      const minutes = Math.round(timeoutMs / 6000) / 10;
      // A job that took the step but never reported would run on for nobody.
      const stopped = await cancelJob(o.store, port, ctx, input);
      return {
        failures: [
          `the Actions job for ${role} (attempt ${attempt}) sent no report within ${minutes} min, dispatched ${dispatches} times: see the repository's ${workflowPath} runs`,
          ...(stopped ? [stopped] : []),
        ],
        events: [],
      };
    }
    const parsed = JobResult.safeParse(report.result);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        failures: [
          `the Actions job's result is not a step result (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`,
        ],
        events: [],
      };
    }
    const { agentOutput, failures, events, work, state } = parsed.data;
    return {
      ...(agentOutput !== undefined ? { agentOutput } : {}),
      failures,
      events,
      ...(work !== undefined ? { work } : {}),
      ...(state !== undefined ? { state } : {}),
    };
  }

  return { runStep };
}

/**
 * Cancels the workflow run that picked the step up, if one did: nobody waits for its report.
 * Returns why it could not be cancelled, or null.
 */
async function cancelJob(
  store: JournalStore,
  port: Awaited<ReturnType<Installations["port"]>>,
  ctx: { owner: string; repo: string },
  input: Pick<StepInput, "run" | "index" | "attempt">,
): Promise<string | null> {
  const picked = (await store.eventsOfType(input.run.id, [PICKED_EVENT])).filter(
    (e) => e.data.index === input.index && e.data.attempt === input.attempt,
  );
  const ids = [...new Set(picked.map((e) => Number(e.data.workflowRunId)))].filter(
    (id) => Number.isSafeInteger(id) && id > 0,
  );
  const failed: string[] = [];
  for (const workflowRunId of ids) {
    try {
      await port.cancelWorkflowRun({ owner: ctx.owner, repo: ctx.repo, workflowRunId });
    } catch (error) {
      failed.push(`workflow run ${workflowRunId}: ${(error as Error).message}`);
    }
  }
  return failed.length > 0
    ? `its Actions job could not be cancelled (${failed.join("; ")}): cancel it on the Actions tab`
    : null;
}

/** The part of a step's input a job runs it from (the run itself is read from the journal). */
export type StepJobInput = Pick<StepInput, "chain" | "role" | "task" | "prior" | "answers"> &
  Partial<JobExtras>;

/** The run and the input of a step attempt the App dispatched, for its job; null when none. */
export async function stepJobInput(
  store: Pick<JournalStore, "getRun" | "events">,
  runId: string,
  index: number,
  attempt: number,
): Promise<{ run: RunRecord; index: number; attempt: number; job: StepJobInput } | null> {
  const run = await store.getRun(runId);
  if (!run) return null;
  const sent = (await store.events(runId)).findLast(
    (e) => e.type === DISPATCHED_EVENT && e.data.index === index && e.data.attempt === attempt,
  );
  const job = sent?.data.job as StepJobInput | undefined;
  return job ? { run, index, attempt, job } : null;
}

/** The step attempt the App dispatched and has no report for yet, or null. */
export async function waitingStep(
  store: Pick<JournalStore, "getRun" | "getSteps" | "events">,
  runId: string,
  index: number,
  attempt: number,
): Promise<DispatchedStep | null> {
  const run = await store.getRun(runId);
  if (run?.state !== "running") return null;
  const step = (await store.getSteps(runId)).find((s) => s.index === index);
  if (step?.state !== "running" || step.attempt !== attempt) return null;
  const events = await store.events(runId);
  const same = (e: { data: Record<string, unknown> }) =>
    e.data.index === index && e.data.attempt === attempt;
  if (events.some((e) => e.type === REPORTED_EVENT && same(e))) return null;
  const sent = events.findLast((e) => e.type === DISPATCHED_EVENT && same(e));
  if (!sent) return null;
  const { repository, workflowPath, ref } = sent.data;
  if (typeof repository !== "string" || typeof workflowPath !== "string") return null;
  return { repository, workflowPath, ...(typeof ref === "string" ? { ref } : {}) };
}

async function waitForReport(
  store: JournalStore,
  runId: string,
  index: number,
  attempt: number,
  w: { deadline: number; pollMs: number; clock: Clock; signal: AbortSignal },
): Promise<{ result: unknown } | "timeout" | "cancelled"> {
  let seen = 0;
  for (;;) {
    if (w.signal.aborted) return "cancelled";
    for (const e of await store.events(runId, seen)) {
      seen = Math.max(seen, e.seq);
      if (e.type === REPORTED_EVENT && e.data.index === index && e.data.attempt === attempt) {
        return { result: e.data.result };
      }
    }
    if (w.clock.now().getTime() >= w.deadline) return "timeout";
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, w.pollMs);
      function done() {
        clearTimeout(timer);
        w.signal.removeEventListener("abort", done);
        resolve();
      }
      w.signal.addEventListener("abort", done, { once: true });
    });
  }
}
