/**
 * The App never goes silent: a background job that fails — a clone, a token, the box proof,
 * the journal, anything — answers on the issue or PR with what failed and what to do, and a
 * run it concerns shows the same in its sticky comment. The text is redacted (a git error or an
 * exception message can carry anything) and never cites internals beyond the failing step.
 *
 * One exception keeps the App quiet: a label or PR event that fails before the repository's
 * config was read, when nothing says it was meant for forgechain (a `bug` label while the
 * repository cannot be fetched). It is logged; answering every label on every issue during an
 * outage would be noise on events that are not ours.
 */
import { GitHubError } from "../github/errors.js";
import { redactSecrets } from "../secrets/index.js";
import { NoBranchLeftError } from "./branch-plan.js";
import type { ForgeEvent, RepoInfo } from "./events.js";
import { MirrorFetchError, MissingDefaultBranchError } from "./repo-mirror.js";
import { fence } from "./reporter-render.js";
import { FAILURE_EVENT } from "./run-context.js";
import type { AppServices } from "./services.js";

/** Where a job is, so a failure can say what failed and whether to answer at all. */
export interface JobTrace {
  /** What the job is doing now, as words: "fetching the repository". */
  stage: string;
  /** "unsure": a label/PR event whose config was not read yet; answered only when plausible. */
  ours: "sure" | "unsure";
  /** How the person starts this again. */
  retry: string;
  /** The issue or PR to answer on (a check re-run learns it from its run). */
  number: number | null;
  installationId: number;
  repo: RepoInfo;
  /** The run the job started or acted on, once there is one. */
  runId?: string;
}

export interface FailureText {
  what: string;
  detail: string;
  todo: string;
}

/** Default trigger labels: an event carrying one is plausibly ours before any config is read. */
const DEFAULT_LABELS = ["forge", "forge:review"];

/**
 * A new job's trace. `known`: the trigger labels the repository's config named when it was
 * last read (AppServices.triggerLabels), so a repository with its own labels is answered too.
 */
export function traceFor(
  ev: Exclude<ForgeEvent, { kind: "ignored" | "installation" }>,
  known: readonly string[] = [],
): JobTrace {
  const base = { stage: "starting", installationId: ev.installationId, repo: ev.repo };
  const plausible = new Set([...DEFAULT_LABELS, ...known]);
  switch (ev.kind) {
    case "issue-labeled":
      return {
        ...base,
        ours: plausible.has(ev.label) ? "sure" : "unsure",
        retry: `add the label again (remove \`${ev.label}\`, then add it)`,
        number: ev.issue.number,
      };
    case "pull-request": {
      const labels = [...ev.pull.labels, ...(ev.label ? [ev.label] : [])];
      return {
        ...base,
        ours: labels.some((l) => plausible.has(l)) ? "sure" : "unsure",
        retry: "add the review label again, or push a new commit",
        number: ev.pull.number,
      };
    }
    case "comment":
      return {
        ...base,
        ours: "sure",
        retry: "comment the command again (for a new run: `/forge run`)",
        number: ev.issue.number,
      };
    case "check-rerequested":
      return { ...base, ours: "sure", retry: "press Re-run on the check again", number: null };
    case "dispatch":
      return {
        ...base,
        ours: "sure",
        retry: "run the workflow again",
        number: ev.issueNumber,
      };
  }
}

/** What failed, the (unredacted) detail, and what to do — by the kind of failure. */
export function explainFailure(err: unknown, trace: JobTrace, delivery: string): FailureText {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof MissingDefaultBranchError) {
    const existing = err.existing.length
      ? `its branches include ${err.existing.map((b) => `\`${b}\``).join(", ")}`
      : "it has no branches at all";
    return {
      what: `the webhook names \`${err.branch}\` as this repository's default branch, but the repository has no branch \`${err.branch}\` (${existing})`,
      detail: "",
      todo: `push \`${err.branch}\`, or make a branch that exists the default branch (Settings → General → Default branch), then ${trace.retry}.`,
    };
  }
  if (err instanceof MirrorFetchError) {
    return {
      what: `forgechain could not fetch the repository (\`${err.remote}\`)`,
      detail: err.detail,
      todo: `check that the forgechain App is still installed on this repository with access to its contents, and that the forgechain server can reach the git host; then ${trace.retry}.`,
    };
  }
  if (err instanceof NoBranchLeftError) {
    return {
      what: "forgechain found no branch it may push this run to",
      detail: message,
      todo: `delete the \`forge/…\` branches of this issue that nobody needs any more, then ${trace.retry}.`,
    };
  }
  if (err instanceof GitHubError) {
    return {
      what: `GitHub refused or did not answer while forgechain was ${trace.stage}`,
      detail: message,
      todo: `GitHub may be briefly unavailable, or the App's permissions changed; ${trace.retry} in a few minutes.`,
    };
  }
  return {
    what: `forgechain failed while ${trace.stage}`,
    detail: message,
    todo: `${trace.retry}; if it fails again, the forgechain server's log has the details (delivery \`${delivery}\`).`,
  };
}

/** Redacted, in words: the reply (or sticky section) body. */
export async function renderFailure(text: FailureText, lead: string): Promise<string> {
  const [what, detail, todo] = await Promise.all(
    [text.what, text.detail.slice(0, 4000), text.todo].map(
      async (t) => (await redactSecrets(t)).text,
    ),
  );
  return [
    `${lead}: ${what}.`,
    ...(detail ? ["", fence(detail, 1500)] : []),
    "",
    `**What to do:** ${todo}`,
  ].join("\n");
}

/** Answer a failed job on its issue/PR (and in its run's sticky comment). Never throws. */
export async function reportJobFailure(
  err: unknown,
  trace: JobTrace,
  delivery: string,
  s: AppServices,
): Promise<void> {
  const text = explainFailure(err, trace, delivery);
  const expected = err instanceof MissingDefaultBranchError || err instanceof MirrorFetchError;
  const log = { delivery, stage: trace.stage, err: (await redactSecrets(String(err))).text };
  if (expected) s.logger.warn(log, "background job failed");
  else s.logger.error(log, "background job failed");
  if (trace.ours !== "sure" || trace.number === null) return;
  const lead = trace.runId
    ? `forgechain stopped working on run \`${trace.runId}\``
    : "forgechain could not start";
  await answer(trace, await renderFailure(text, lead), text, s);
}

/** A run's drive failed after it started: the run stays where it was; say so, and how to act. */
export async function reportRunFailure(
  err: unknown,
  trace: JobTrace & { runId: string },
  s: AppServices,
): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  const text: FailureText = {
    what: "driving the chain failed, so the run stopped where it was",
    detail: message,
    todo: `stop it with \`/forge cancel ${trace.runId}\`, then ${trace.retry}; restarting the forgechain server also picks the run up again.`,
  };
  s.logger.error({ runId: trace.runId, err: (await redactSecrets(message)).text }, "drive failed");
  if (trace.number === null) return;
  await answer(
    trace,
    await renderFailure(text, `forgechain stopped working on run \`${trace.runId}\``),
    text,
    s,
  );
}

async function answer(trace: JobTrace, body: string, text: FailureText, s: AppServices) {
  if (trace.runId) {
    // The sticky comment shows the same (reporter-render.ts reads these events).
    const redacted = Object.fromEntries(
      await Promise.all(
        Object.entries(text).map(async ([k, v]) => [k, (await redactSecrets(v)).text] as const),
      ),
    );
    await s.store
      .transition(trace.runId, { events: [{ type: FAILURE_EVENT, data: redacted }] })
      .then(() => s.reporter.refresh(trace.runId ?? ""))
      .catch((e: unknown) => s.logger.warn({ err: String(e) }, "could not journal the failure"));
  }
  try {
    const port = await s.installations.port(trace.installationId);
    await port.postReply({
      owner: trace.repo.owner,
      repo: trace.repo.name,
      issueNumber: trace.number ?? 0,
      body,
    });
  } catch (e) {
    // GitHub itself is what failed (or the token): the log is all that is left.
    s.logger.error(
      { err: (await redactSecrets(String(e))).text, issue: trace.number },
      "could not reply about a failed job",
    );
  }
}
