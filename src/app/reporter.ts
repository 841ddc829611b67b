/**
 * Engine events → GitHub (R9): check runs per role, the sticky comment, the draft PR and
 * `forge/gate`. An observer must never hold the chain up (ports.ts), so every event only
 * queues work on its run's own serial queue; GitHub errors are logged and never thrown back.
 *
 * Check runs sit on the commit they judge. A review chain's head exists on GitHub from the
 * start, so its checks go queued → in_progress → completed live. A change chain's commits
 * reach GitHub only when the runner pushes the branch at the end (with the run output), so
 * its role checks are created on that head then — a check on a commit GitHub does not have
 * is refused (422), and putting them on the default branch's head would mark main red for an
 * unmerged proposal. Live progress of a change chain is in the sticky comment.
 */
import type { ChainObserver, JournalStore, Logger, StepProgress } from "../chain/ports.js";
import type { RunEvent, RunRecord } from "../chain/types.js";
import type { Finding, GitHubPort } from "../github/port.js";
import { isRole, type Role } from "../roles/role-names.js";
import { changedFiles } from "./changed-files.js";
import { evaluateGate } from "./gate.js";
import type { Installations } from "./installations.js";
import { renderPullBody, renderSticky } from "./reporter-render.js";
import {
  type GitHubRunContext,
  githubContextOf,
  PULL_EVENT,
  pullOf,
  type RunIndex,
} from "./run-context.js";

export const CHECK_EVENT = "github.check";
export const GATE_EVENT = "gate.set";
export const SUPERSEDED = "superseded";

export interface ReporterDeps {
  store: JournalStore;
  installations: Installations;
  forgeHome: string;
  logger: Logger;
  index: RunIndex;
  /** Coalescing window for sticky comment edits; default 750 ms. */
  stickyDelayMs?: number;
}

export interface Reporter extends ChainObserver {
  /** Re-render the sticky comment and, for a finished run, re-decide the gate. */
  refresh(runId: string, options?: { gate?: boolean }): void;
  idle(): Promise<void>;
}

interface View {
  ctx: GitHubRunContext | null;
  checks: Map<Role, number>;
  tail: Promise<void>;
  /** Number of the newest queued sticky render; older ones skip (coalescing). */
  latestSticky: number;
  lastBody: string | null;
  progress?: StepProgress;
}

export function createReporter(deps: ReporterDeps): Reporter {
  const { store, logger } = deps;
  const views = new Map<string, View>();
  const delay = deps.stickyDelayMs ?? 750;

  const warn = (runId: string, what: string, err: unknown) =>
    logger.warn({ runId, err: err instanceof Error ? err.message : String(err) }, what);

  function view(runId: string): View {
    let v = views.get(runId);
    if (!v) {
      const fresh: View = {
        ctx: null,
        checks: new Map(),
        tail: Promise.resolve(),
        latestSticky: 0,
        lastBody: null,
      };
      fresh.tail = (async () => {
        const run = await store.getRun(runId);
        fresh.ctx = run ? githubContextOf(run) : null;
        if (!fresh.ctx) return;
        for (const e of await store.events(runId)) {
          const d = e.data as { role?: unknown; checkRunId?: unknown };
          if (e.type === CHECK_EVENT && isRole(d.role) && typeof d.checkRunId === "number") {
            fresh.checks.set(d.role, d.checkRunId);
          }
        }
      })().catch((err) => warn(runId, "reporter could not load the run", err));
      views.set(runId, fresh);
      v = fresh;
    }
    return v;
  }

  function enqueue(
    runId: string,
    task: (v: View, ctx: GitHubRunContext, port: GitHubPort) => Promise<void>,
  ) {
    const v = view(runId);
    v.tail = v.tail.then(async () => {
      if (!v.ctx) return;
      try {
        await task(v, v.ctx, await deps.installations.port(v.ctx.installationId));
      } catch (err) {
        warn(runId, "reporting to GitHub failed", err);
      }
    });
  }

  const journal = (runId: string, type: string, data: Record<string, unknown>) =>
    store.transition(runId, { events: [{ type, data }] });

  async function getRun(runId: string): Promise<RunRecord> {
    const run = await store.getRun(runId);
    if (!run) throw new Error(`run ${runId} disappeared`);
    return run;
  }

  async function createCheck(
    v: View,
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
    v: View,
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

  async function apply(v: View, ctx: GitHubRunContext, port: GitHubPort, e: RunEvent) {
    const run = await getRun(e.runId);
    const live = run.chain === "review" && ctx.pull;
    const role = isRole(e.data.role) ? e.data.role : null;
    switch (e.type) {
      case "run.created":
        if (live && ctx.pull) {
          for (const s of await store.getSteps(run.id)) {
            if (!v.checks.has(s.role))
              await createCheck(v, ctx, port, run, s.role, ctx.pull.headSha);
          }
        }
        return;
      case "step.started": {
        const id = role ? v.checks.get(role) : undefined;
        if (live && role && id !== undefined) {
          await port.updateRoleCheck({
            owner: ctx.owner,
            repo: ctx.repo,
            checkRunId: id,
            role,
            status: "in_progress",
            summary: `${role} is running (attempt ${String(e.data.attempt ?? 1)}).`,
          });
        }
        return;
      }
      case "step.finished": {
        const id = role ? v.checks.get(role) : undefined;
        if (live && role && id !== undefined)
          await completeCheck(ctx, port, run, role, id, e.data.cancelled === true);
        return;
      }
      case "run.cancelled":
        if (live && ctx.pull) {
          for (const s of await store.getSteps(run.id)) {
            const id = v.checks.get(s.role);
            if (s.state === "queued" && id !== undefined)
              await completeCheck(ctx, port, run, s.role, id, true);
          }
          // A superseded review's head is no longer the PR's head: its gate no longer matters.
          if (!String(e.data.reason ?? "").startsWith(SUPERSEDED))
            await setGate(ctx, port, run, ctx.pull.headSha);
        }
        return;
      case "run.finished":
        await finalize(v, ctx, port, run.id, e.data);
        return;
      default:
    }
  }

  function scheduleSticky(runId: string) {
    const v = view(runId);
    // Always queued after the work just queued, so it renders what that work journaled; an
    // older render still waiting skips itself, so a burst of events costs one edit.
    const mine = ++v.latestSticky;
    enqueue(runId, async (view, ctx, port) => {
      if (mine !== view.latestSticky) return;
      await new Promise((r) => setTimeout(r, delay));
      if (mine !== view.latestSticky) return;
      const [run, steps, requests, events] = await Promise.all([
        getRun(runId),
        store.getSteps(runId),
        store.listRequests(runId),
        store.events(runId),
      ]);
      const gateEvent = [...events].reverse().find((e) => e.type === GATE_EVENT);
      const body = renderSticky({
        run,
        steps,
        events,
        pending: requests.filter((r) => r.status === "pending"),
        pull: pullOf(ctx, events),
        gate: gateEvent
          ? {
              conclusion: String(gateEvent.data.conclusion),
              title: String(gateEvent.data.title),
              awaitingApproval: gateEvent.data.awaitingApproval === true,
            }
          : null,
        progress: view.progress,
      });
      if (body === view.lastBody) return;
      await port.upsertRunComment({
        owner: ctx.owner,
        repo: ctx.repo,
        issueNumber: ctx.issueNumber,
        runId,
        body,
      });
      view.lastBody = body;
    });
  }

  return {
    events(runId, events) {
      enqueue(runId, async (v, ctx, port) => {
        for (const e of events) await apply(v, ctx, port, e);
      });
      scheduleSticky(runId);
    },
    progress(runId, progress) {
      view(runId).progress = progress;
    },
    refresh(runId, options = {}) {
      if (options.gate) {
        enqueue(runId, async (_v, ctx, port) => {
          // Only a head that already carries our gate (it exists on GitHub and was judged).
          const run = await getRun(runId);
          const last = [...(await store.events(runId))]
            .reverse()
            .find((e) => e.type === GATE_EVENT);
          const head = typeof last?.data.headSha === "string" ? last.data.headSha : null;
          if (run.state === "passed" && head) await setGate(ctx, port, run, head);
        });
      }
      scheduleSticky(runId);
    },
    async idle() {
      for (;;) {
        const tails = [...views.values()].map((v) => v.tail);
        await Promise.all(tails);
        if ([...views.values()].every((v, i) => v.tail === tails[i])) return;
      }
    },
  };
}
