/**
 * A workflow_dispatch naming an issue (the Action's "run forgechain on issue N" button): the
 * issue's title and text are asked from the API — the event carries only its number — then it
 * is the same change chain as a label or `/forge run` starts, with the same trust rules.
 */
import type { ForgeEvent } from "./events.js";
import { MAX_BODY, MAX_TITLE } from "./events.js";
import type { JobTrace } from "./job-failure.js";
import { startChain } from "./run-starter.js";
import type { AppServices } from "./services.js";

type DispatchEvent = Extract<ForgeEvent, { kind: "dispatch" }>;

export async function handleDispatch(
  ev: DispatchEvent,
  s: AppServices,
  trace: JobTrace,
): Promise<void> {
  trace.stage = "getting access to the repository from GitHub";
  const port = await s.installations.port(ev.installationId);
  trace.stage = `reading issue #${ev.issueNumber}`;
  const issue = await port.getIssue({
    owner: ev.repo.owner,
    repo: ev.repo.name,
    issueNumber: ev.issueNumber,
  });
  if (!issue) {
    // Nowhere to reply: the log (the workflow's, in the Action) says it.
    s.logger.error(
      { delivery: ev.delivery, issue: ev.issueNumber },
      `there is no issue #${ev.issueNumber} in ${ev.repo.fullName}: nothing ran; run the workflow again with the number of an open issue`,
    );
    return;
  }
  if (issue.isPullRequest) {
    await port.postReply({
      owner: ev.repo.owner,
      repo: ev.repo.name,
      issueNumber: ev.issueNumber,
      body: `@${ev.sender.login}: #${ev.issueNumber} is a pull request, and a dispatched run is a change chain on an issue. To review this pull request, add the review label (default \`forge:review\`). Nothing ran.`,
    });
    return;
  }
  const title = issue.title.slice(0, MAX_TITLE);
  await startChain(
    {
      chain: "change",
      installationId: ev.installationId,
      repo: ev.repo,
      number: ev.issueNumber,
      task: {
        title: title || `issue ${ev.issueNumber}`,
        body: issue.body.slice(0, MAX_BODY),
        number: ev.issueNumber,
      },
      actor: ev.sender,
      delivery: ev.delivery,
      event: "workflow_dispatch",
      trigger: { kind: "dispatch" },
    },
    s,
    trace,
  );
}
