/**
 * The Probot application: thin handlers. Each parses its payload once (events.ts), drops what
 * is not ours cheaply (bots, comments that are no command, redelivered deliveries), pushes
 * one job and returns — Probot awaits the handler before it answers GitHub (R1.5). Trust,
 * policy and the engine are the job's business (run-starter.ts, command-flow.ts).
 */
import type { ApplicationFunction, Context } from "probot";
import { handleComment } from "./command-flow.js";
import { parseCommand } from "./commands.js";
import { handleDispatch } from "./dispatch-flow.js";
import { type ForgeEvent, parseWebhook } from "./events.js";
import { type JobTrace, reportJobFailure, traceFor } from "./job-failure.js";
import { findRunForCheck, rerunForCheck } from "./rerun.js";
import { startChain } from "./run-starter.js";
import type { AppServices } from "./services.js";

export const HANDLED_EVENTS = [
  "issues.labeled",
  "pull_request.labeled",
  "pull_request.opened",
  "pull_request.synchronize",
  "issue_comment.created",
  "check_run.rerequested",
  "installation",
  "installation_repositories",
] as const;

export function forgeApp(services: AppServices): ApplicationFunction {
  return (app) => {
    app.on([...HANDLED_EVENTS], async (context: Context) => {
      const event = parseWebhook(context.name, context.payload, context.id);
      await accept(event, services);
    });
  };
}

/** What a handler does with a parsed event before it returns: filter, dedupe, enqueue. */
export async function accept(ev: ForgeEvent, s: AppServices): Promise<"queued" | "dropped"> {
  const log = s.logger;
  if (ev.kind === "ignored") {
    log.debug({ delivery: ev.delivery, reason: ev.reason }, "webhook ignored");
    return "dropped";
  }
  if (ev.kind === "installation") {
    // Housekeeping only: nothing is stored per installation; tokens come from Probot.
    log.info(
      { action: ev.action, installation: ev.installationId, account: ev.account },
      "installation event",
    );
    return "dropped";
  }
  // No loops: nothing a bot (this app included) does triggers anything, not even a reply.
  if (ev.sender.isBot || (ev.kind === "comment" && ev.comment.author.isBot)) return "dropped";
  if (ev.kind === "comment" && parseCommand(ev.comment.body).kind === "none") return "dropped";
  if (ev.kind === "issue-labeled" && ev.issue.isPullRequest) return "dropped";
  // R1.5, twice: in memory here (no disk write on the reply's path: an fsync per delivery
  // would queue 50 concurrent replies behind each other), and durably in the journal as the
  // job's first act, before anything else — so a redelivery after a restart is a no-op too.
  if (!s.deliveries.claim(ev.delivery)) {
    log.info({ delivery: ev.delivery }, "redelivered webhook: already handled");
    return "dropped";
  }
  s.queue.push(`${ev.kind}:${ev.delivery}`, async () => {
    const trace = traceFor(ev, s.triggerLabels.get(ev.repo.fullName));
    try {
      trace.stage = "recording the delivery";
      if (!(await s.store.markDelivery(ev.delivery))) {
        log.info({ delivery: ev.delivery }, "redelivered webhook: already handled");
        return;
      }
      await dispatch(ev, s, trace);
    } catch (err) {
      // Never silent: whatever failed is answered where the trigger came from.
      await reportJobFailure(err, trace, ev.delivery, s);
    }
  });
  return "queued";
}

/** Delivery ids seen by this process (bounded); the journal's table is the durable record. */
export class RecentDeliveries {
  private readonly ids = new Set<string>();
  constructor(private readonly max = 10_000) {}
  /** True the first time this process sees the id. */
  claim(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
    return true;
  }
}

async function dispatch(ev: ForgeEvent, s: AppServices, trace: JobTrace): Promise<void> {
  switch (ev.kind) {
    case "issue-labeled":
      await startChain(
        {
          chain: "change",
          installationId: ev.installationId,
          repo: ev.repo,
          number: ev.issue.number,
          task: {
            title: ev.issue.title || `issue ${ev.issue.number}`,
            body: ev.issue.body,
            number: ev.issue.number,
          },
          actor: ev.sender,
          delivery: ev.delivery,
          event: "issues.labeled",
          trigger: { kind: "label", label: ev.label },
        },
        s,
        trace,
      );
      return;
    case "pull-request":
      await startChain(
        {
          chain: "review",
          installationId: ev.installationId,
          repo: ev.repo,
          number: ev.pull.number,
          task: {
            title: ev.pull.title || `pull request ${ev.pull.number}`,
            body: ev.pull.body,
            number: ev.pull.number,
          },
          pull: ev.pull,
          actor: ev.sender,
          delivery: ev.delivery,
          event: `pull_request.${ev.action}`,
          trigger:
            ev.action === "labeled"
              ? { kind: "label", label: ev.label ?? "" }
              : { kind: "pull-action", action: ev.action },
        },
        s,
        trace,
      );
      return;
    case "comment":
      await handleComment(ev, s, trace);
      return;
    case "dispatch":
      await handleDispatch(ev, s, trace);
      return;
    case "check-rerequested": {
      trace.stage = "finding the run of the check";
      const run = await findRunForCheck(ev, s);
      if (run) await rerunForCheck(ev, run, s, trace);
      return;
    }
    default:
  }
}
