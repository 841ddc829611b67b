/**
 * The GitHub objects that carry a run's verdict: a check run per role, `forge/gate` on the
 * judged head (R9.4), and — when a change chain ends with a pushed branch — its draft PR
 * (R9.5). Apart from reporter.ts, which decides *when* each is written (per event, on its
 * run's serial queue), because this is *what* is written and journaled: each GitHub object
 * is recorded in the run's journal so a restarted reporter and the gatekeeper find it again.
 */
import type { JournalStore } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import type { Finding, GitHubPort } from "../github/port.js";
import type { Role } from "../roles/role-names.js";
import { changedFiles } from "./changed-files.js";
import { evaluateGate } from "./gate.js";
import { renderPullBody } from "./reporter-render.js";
import { type GitHubRunContext, PULL_EVENT, pullOf, type RunIndex } from "./run-context.js";

export const CHECK_EVENT = "github.check";
export const GATE_EVENT = "gate.set";

export interface VerdictDeps {
  store: JournalStore;
  forgeHome: string;
  index: RunIndex;
  journal(runId: string, type: string, data: Record<string, unknown>): Promise<unknown>;
  getRun(runId: string): Promise<RunRecord>;
  warn(runId: string, what: string, err: unknown): void;
}

/** The check run ids the reporter knows for a run, by role. */
interface RoleChecks {
  checks: Map<Role, number>;
}

export function createVerdicts(deps: VerdictDeps) {
  const { store, journal, getRun, warn } = deps;

  async function createCheck(
    v: RoleChecks,
    ctx: GitHubRunContext,
    port: GitHubPort,
    run: RunRecord,
    role: Role,
    headSha: string,
  ) {
    const id = await port.createRoleCheck({
      owner: ctx.owner,
      repo: ctx.repo,
      headSha,
      role,
      runId: run.id,
    });
    v.checks.set(role, id);
    await journal(run.id, CHECK_EVENT, { role, checkRunId: id, headSha });
    return id;
  }

  async function completeCheck(
    ctx: GitHubRunContext,
    port: GitHubPort,
    run: RunRecord,
    role: Role,
    checkRunId: number,
    cancelled: boolean,
  ) {
    const step = (await store.getSteps(run.id)).find((s) => s.role === role);
    const output = (step?.output ?? null) as { summary?: unknown; findings?: unknown } | null;
    const summary =
      typeof output?.summary === "string"
        ? output.summary
        : cancelled
          ? "This step did not run to a verdict: the run was cancelled or superseded, or the chain stopped earlier."
          : "The step gave no schema-valid output.";
    await port.updateRoleCheck({
      owner: ctx.owner,
      repo: ctx.repo,
      checkRunId,
      role,
      status: "completed",
      decision: step?.decision ?? null,
      cancelled,
      summary,
      findings: Array.isArray(output?.findings) ? (output.findings as Finding[]) : [],
    });
  }

  async function setGate(ctx: GitHubRunContext, port: GitHubPort, run: RunRecord, headSha: string) {
    const [steps, events] = await Promise.all([store.getSteps(run.id), store.events(run.id)]);
    const files = await changedFiles(deps.forgeHome, run, headSha).catch(() => null);
    const gate = evaluateGate({ run, steps, events, headSha, changedFiles: files });
    await port.setGate({
      owner: ctx.owner,
      repo: ctx.repo,
      headSha,
      conclusion: gate.conclusion,
      summary: gate.summary,
      title: gate.title,
    });
    await journal(run.id, GATE_EVENT, {
      headSha,
      conclusion: gate.conclusion,
      title: gate.title,
      awaitingApproval: gate.awaitingApproval,
      protectedFiles: gate.protectedFiles.slice(0, 50),
    });
    const pull = pullOf(ctx, events);
    if (gate.conclusion === "failure" && pull) {
      // R9.4: a closed gate also turns auto-merge off; the port rejects when it may still be on.
      await port.disableAutoMerge({ pullRequestNodeId: pull.nodeId }).catch(async (err) => {
        warn(run.id, "auto-merge may still be on", err);
        await journal(run.id, "gate.auto_merge_unknown", { error: String(err).slice(0, 300) });
      });
    }
  }

  async function finalize(
    v: RoleChecks,
    ctx: GitHubRunContext,
    port: GitHubPort,
    runId: string,
    data: Record<string, unknown>,
  ) {
    const run = await getRun(runId);
    const headSha = typeof data.headSha === "string" ? data.headSha : null;
    if (run.chain === "review") {
      const head = ctx.pull?.headSha ?? null;
      if (head)
        await setGate(ctx, port, { ...run, state: headSha === head ? run.state : "failed" }, head);
      return;
    }
    const events = await store.events(runId);
    const pushed = events.some(
      (e) => (e.type === "runner.run.output" || e.type === "run.output") && e.data.pushed === true,
    );
    const branch = typeof data.branch === "string" ? data.branch : run.branch;
    if (!pushed || !headSha || !branch) return; // the sticky comment says why (run output note)
    const steps = await store.getSteps(runId);
    if (!pullOf(ctx, events)) {
      const title = `forge: ${run.task.title}`.slice(0, 256);
      const body = renderPullBody({
        run,
        steps,
        issueNumber: ctx.issueNumber,
        runOutputPath: (data.runOutputPath as string | null) ?? null,
      });
      const pr = await port.openDraftPullRequest({
        owner: ctx.owner,
        repo: ctx.repo,
        head: branch,
        base: run.repo.baseRef,
        title,
        body,
      });
      // An earlier run's PR for this branch (branch-plan.ts): it shows this run now.
      if (!pr.created)
        await port.updatePullRequest({
          owner: ctx.owner,
          repo: ctx.repo,
          number: pr.number,
          title,
          body,
        });
      await journal(runId, PULL_EVENT, {
        number: pr.number,
        nodeId: pr.nodeId,
        url: pr.url,
        draft: pr.draft,
      });
      deps.index.addNumber(runId, pr.number);
    }
    for (const s of steps) {
      const id = await createCheck(v, ctx, port, run, s.role, headSha);
      await completeCheck(ctx, port, run, s.role, id, s.state !== "passed" && s.state !== "failed");
    }
    await setGate(ctx, port, run, headSha);
  }

  return { createCheck, completeCheck, setGate, finalize };
}
