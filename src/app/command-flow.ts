/**
 * `/forge …` comment commands (R1.3, R6.3–R6.4), in the background job. The author was
 * checked for being a bot in the handler; here: trust (every command, help included, is a
 * reply on behalf of the app, so untrusted authors get only the refusal), then the command.
 * Every human answer goes through the gatekeeper (sealed, verified, then acted on); every
 * outcome is a short reply.
 */
import type { RunRecord, RunState } from "../chain/types.js";
import { CHAINS } from "../roles/role-names.js";
import { HELP_TEXT, type ParsedCommand, parseCommand } from "./commands.js";
import type { ForgeEvent } from "./events.js";
import { runVerdictsDigest } from "./gate.js";
import { gateHead, runRepo } from "./gatekeeper.js";
import type { JobTrace } from "./job-failure.js";
import { renderSticky } from "./reporter-render.js";
import { GATE_EVENT } from "./reporter-verdicts.js";
import { githubContextOf, pullOf } from "./run-context.js";
import { startChain } from "./run-starter.js";
import type { AppServices, CommandReply } from "./services.js";
import { checkTrust } from "./trust.js";

type CommentEvent = Extract<ForgeEvent, { kind: "comment" }>;

const STATES_FOR: Record<"resume" | "cancel" | "approve" | "status", RunState[] | undefined> = {
  resume: ["paused"],
  cancel: ["queued", "running", "paused"],
  approve: ["passed"],
  status: undefined,
};

export async function handleComment(
  ev: CommentEvent,
  s: AppServices,
  trace?: JobTrace,
): Promise<void> {
  const cmd = parseCommand(ev.comment.body);
  if (cmd.kind === "none") return;
  if (trace) trace.stage = `handling \`/forge ${cmd.kind}\``;
  const port = await s.installations.port(ev.installationId);
  const reply = (body: string) =>
    port.postReply({
      owner: ev.repo.owner,
      repo: ev.repo.name,
      issueNumber: ev.issue.number,
      body,
    });
  const actor = ev.comment.author;
  const trust = await checkTrust(actor, ev.repo, { port, trusted: s.settings.trusted });
  if (!trust.trusted) {
    const text = `@${actor.login}: ${trust.reason}. Nothing changed.`;
    await reply(text);
    s.commandReplies?.({ text, refused: true });
    return;
  }
  const answer = await runCommand(cmd, ev, s, trace);
  if (answer) {
    await reply(answer.text);
    s.commandReplies?.(answer);
  }
}

const done = (text: string): CommandReply => ({ text, refused: false });
const refused = (text: string): CommandReply => ({ text, refused: true });
/** A gatekeeper's outcome as a reply: refused when it did not act. */
const acted = (o: { ok: boolean; message: string }): CommandReply => ({
  text: o.message,
  refused: !o.ok,
});

async function runCommand(
  cmd: ParsedCommand,
  ev: CommentEvent,
  s: AppServices,
  trace: JobTrace | undefined,
): Promise<CommandReply | null> {
  const actor = ev.comment.author.login;
  switch (cmd.kind) {
    case "none":
      return null;
    case "too-large":
    case "invalid":
      return refused(cmd.message);
    case "help":
      return done(`${cmd.reason ? `${cmd.reason}.\n\n` : ""}${HELP_TEXT}`);
    case "run": {
      const chain = cmd.chain ?? (ev.issue.isPullRequest ? "review" : "change");
      if (chain === "change" && ev.issue.isPullRequest)
        return refused(
          "a change chain starts from an issue, not a pull request: use `/forge run review` here.",
        );
      if (chain === "review" && !ev.issue.isPullRequest)
        return refused(
          "a review chain runs on a pull request: use `/forge run` on the pull request.",
        );
      if (chain === "review")
        return refused(
          "start a review by adding the review label (default `forge:review`) to the pull request; its head commit is taken from that event.",
        );
      const outcome = await startChain(
        {
          chain,
          installationId: ev.installationId,
          repo: ev.repo,
          number: ev.issue.number,
          task: {
            title: ev.issue.title || `issue ${ev.issue.number}`,
            body: ev.issue.body,
            number: ev.issue.number,
          },
          actor: ev.comment.author,
          delivery: ev.delivery,
          event: "issue_comment.created",
          trigger: { kind: "command" },
        },
        s,
        trace,
      );
      return outcome.started
        ? done(`started run \`${outcome.runId}\` (${chain} chain: ${CHAINS[chain].join(" → ")}).`)
        : null;
    }
    case "status": {
      const run = await findRun(cmd.runId, ev, s, STATES_FOR.status);
      return typeof run === "string" ? refused(run) : done(await statusText(run, s));
    }
    case "respond": {
      const run = await findRun(cmd.runId, ev, s, undefined);
      if (typeof run === "string") return refused(run);
      const outcome = await s.gatekeeper.act(
        s.gatekeeper.seal({
          gate: "respond",
          runId: run.id,
          actor,
          repo: ev.repo.fullName,
          requestId: cmd.requestId,
          answer: cmd.answer,
        }),
      );
      return acted(outcome);
    }
    case "resume":
    case "cancel": {
      const run = await findRun(cmd.runId, ev, s, STATES_FOR[cmd.kind]);
      if (typeof run === "string") return refused(run);
      const outcome = await s.gatekeeper.act(
        s.gatekeeper.seal({ gate: cmd.kind, runId: run.id, actor, repo: ev.repo.fullName }),
      );
      return acted(outcome);
    }
    case "approve": {
      const run = await findRun(cmd.runId, ev, s, STATES_FOR.approve);
      if (typeof run === "string") return refused(run);
      const events = await s.store.events(run.id);
      const last = [...events].reverse().find((e) => e.type === GATE_EVENT);
      const headSha = await gateHead(s.store, run.id);
      if (!last || !headSha || last.data.awaitingApproval !== true) {
        return refused(
          `run \`${run.id}\` has nothing to approve: its gate is ${last ? `"${String(last.data.title)}"` : "not set yet"}. Nothing changed.`,
        );
      }
      const outcome = await s.gatekeeper.act(
        s.gatekeeper.seal({
          gate: "approve",
          runId: run.id,
          actor,
          repo: ev.repo.fullName,
          headSha,
          verdictsDigest: runVerdictsDigest(await s.store.getSteps(run.id)),
        }),
      );
      return acted(outcome);
    }
  }
}

/** The named run (it must belong to this repository), or the newest fitting run here. */
async function findRun(
  runId: string | undefined,
  ev: CommentEvent,
  s: AppServices,
  states: RunState[] | undefined,
): Promise<RunRecord | string> {
  if (runId !== undefined) {
    const run = await s.store.getRun(runId);
    if (!run) return `there is no run \`${runId}\`. Nothing changed.`;
    // R6.3: a run of another repository cannot be answered (or even looked at) from here.
    if (runRepo(run) !== ev.repo.fullName)
      return `run \`${runId}\` belongs to another repository. Nothing changed.`;
    return run;
  }
  const runs = await s.index.runsOn(ev.repo.fullName, ev.issue.number, states);
  const run = runs[0];
  if (!run) {
    const which = states ? ` that is ${states.join(" or ")}` : "";
    return `there is no forgechain run on this ${ev.issue.isPullRequest ? "pull request" : "issue"}${which}; name one with its id. Nothing changed.`;
  }
  return run;
}

async function statusText(run: RunRecord, s: AppServices): Promise<string> {
  const [steps, requests, events] = await Promise.all([
    s.store.getSteps(run.id),
    s.store.listRequests(run.id),
    s.store.events(run.id),
  ]);
  const ctx = githubContextOf(run);
  const gate = [...events].reverse().find((e) => e.type === GATE_EVENT);
  return renderSticky({
    run,
    steps,
    events,
    pending: requests.filter((r) => r.status === "pending"),
    pull: ctx ? pullOf(ctx, events) : null,
    gate: gate
      ? {
          conclusion: String(gate.data.conclusion),
          title: String(gate.data.title),
          awaitingApproval: gate.data.awaitingApproval === true,
        }
      : null,
  });
}
