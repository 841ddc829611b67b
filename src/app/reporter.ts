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
import type { GitHubPort } from "../github/port.js";
import { isRole, type Role } from "../roles/role-names.js";
import type { Installations } from "./installations.js";
import { renderSticky } from "./reporter-render.js";
import { CHECK_EVENT, createVerdicts, GATE_EVENT } from "./reporter-verdicts.js";
import { type GitHubRunContext, githubContextOf, pullOf, type RunIndex } from "./run-context.js";

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

  const { createCheck, completeCheck, setGate, finalize } = createVerdicts({
    store,
    forgeHome: deps.forgeHome,
    index: deps.index,
    journal,
    getRun,
    warn,
  });

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
