/**
 * `check_run.rerequested` (someone pressed "Re-run" on a forge/<role> check). The engine has
 * no per-step re-run of a finished chain — a step's verdict depends on the steps before it —
 * so a new run of the whole chain starts, on the same head for a review, and the reply says so.
 */
import type { RunRecord } from "../chain/types.js";
import { ROLES } from "../roles/role-names.js";
import type { ForgeEvent } from "./events.js";
import { runRepo } from "./gatekeeper.js";
import type { JobTrace } from "./job-failure.js";
import { githubContextOf } from "./run-context.js";
import { startChain } from "./run-starter.js";
import type { AppServices } from "./services.js";

type CheckEvent = Extract<ForgeEvent, { kind: "check-rerequested" }>;

const CHECK_NAMES = new Set(ROLES.map((r) => `forge/${r}`));

export async function findRunForCheck(ev: CheckEvent, s: AppServices): Promise<RunRecord | null> {
  // external_id is the run id (createRoleCheck); forge/gate carries none and is re-decided
  // only by its run.
  if (!CHECK_NAMES.has(ev.check.name) || ev.check.externalId === "") return null;
  const run = await s.store.getRun(ev.check.externalId);
  if (!run || runRepo(run) !== ev.repo.fullName) {
    s.logger.warn(
      { check: ev.check.name, externalId: ev.check.externalId },
      "re-run for an unknown run",
    );
    return null;
  }
  return run;
}

export async function rerunForCheck(
  ev: CheckEvent,
  run: RunRecord,
  s: AppServices,
  trace?: JobTrace,
): Promise<void> {
  const ctx = githubContextOf(run);
  if (!ctx) return;
  if (trace) trace.number = ctx.issueNumber;
  const outcome = await startChain(
    {
      chain: run.chain,
      installationId: ev.installationId,
      repo: ev.repo,
      number: ctx.issueNumber,
      task: run.task,
      ...(ctx.pull
        ? {
            pull: {
              number: ctx.pull.number,
              title: run.task.title,
              body: run.task.body,
              nodeId: ctx.pull.nodeId,
              headSha: ctx.pull.headSha,
              headRef: ctx.pull.headSha,
              baseRef: run.repo.baseRef,
              fromFork: false,
              labels: [],
            },
          }
        : {}),
      actor: ev.sender,
      delivery: ev.delivery,
      event: "check_run.rerequested",
      trigger: { kind: "command" },
    },
    s,
    trace,
  );
  if (!outcome.started) return;
  const port = await s.installations.port(ev.installationId);
  await port.postReply({
    owner: ev.repo.owner,
    repo: ev.repo.name,
    issueNumber: ctx.issueNumber,
    body: `\`${ev.check.name}\` was re-requested. forgechain does not re-run one step of a finished chain (each verdict builds on the steps before it), so it started run \`${outcome.runId}\` of the whole ${run.chain} chain${ctx.pull ? ` on ${ctx.pull.headSha.slice(0, 12)}` : ""}.`,
  });
}
