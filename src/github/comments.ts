/**
 * The sticky run comment (R9.2) and plain replies. A run has one comment, found by a hidden
 * marker on its first line and edited in place. A write whose outcome is unknown (timeout, 5xx,
 * dropped connection) is never blindly repeated: the issue's comments are listed and the
 * marker looked for first, so a flaky network cannot leave two comments for one run.
 */
import { type PortContext, requestOptions } from "./context.js";
import { idFrom, isOutcomeUnknown, statusOf, toGitHubError } from "./errors.js";
import type { GitHubPort } from "./port.js";
import { COMMENT_MAX_BYTES, truncateUtf8 } from "./text-limit.js";

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The hidden marker. The run id is checked so that it can never close the HTML comment. */
export function runMarker(runId: string): string {
  if (!RUN_ID.test(runId))
    throw new TypeError(`not a run id: ${JSON.stringify(runId).slice(0, 80)}`);
  return `<!-- forgechain:run:${runId} -->`;
}

interface MarkedComment {
  id: number;
  body: string;
}

export function upsertRunComment(ctx: PortContext): GitHubPort["upsertRunComment"] {
  return async ({ owner, repo, issueNumber, runId, body }) => {
    const op = "upsertRunComment";
    const marker = runMarker(runId);
    // Truncation keeps the head, so the marker always survives.
    const full = truncateUtf8(`${marker}\n${body}`, COMMENT_MAX_BYTES, "comment");
    const key = `${owner}/${repo}#${issueNumber}:${runId}`;

    const find = async (): Promise<MarkedComment | null> => {
      try {
        return await findMarked(ctx, owner, repo, issueNumber, marker);
      } catch (error) {
        throw toGitHubError(op, error, "listing comments to find the run's comment");
      }
    };
    const update = async (commentId: number) => {
      await ctx.octokit.rest.issues.updateComment({
        owner,
        repo,
        comment_id: commentId,
        body: full,
        request: requestOptions(ctx, "once"),
      });
    };
    const create = async () => {
      const { data } = await ctx.octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: issueNumber,
        body: full,
        request: requestOptions(ctx, "once"),
      });
      return idFrom(op, data);
    };
    /** After an unknown outcome: make the marked comment hold `full`, if it exists. */
    const settle = async (): Promise<number | null> => {
      const found = await find();
      if (!found) return null;
      if (found.body !== full) {
        try {
          await update(found.id);
        } catch (error) {
          throw toGitHubError(op, error, "editing the run's comment after reconciling");
        }
      }
      await ctx.commentIds.set(key, found.id);
      return found.id;
    };

    // A restart forgets ids: look before the first post of this process.
    let known = await ctx.commentIds.get(key);
    if (known === null) {
      const found = await find();
      if (found) {
        known = found.id;
        await ctx.commentIds.set(key, known);
        if (found.body === full) return { commentId: known, created: false };
      }
    }

    if (known !== null) {
      try {
        await update(known);
        return { commentId: known, created: false };
      } catch (error) {
        if (statusOf(error) === 404 || statusOf(error) === 410) {
          await ctx.commentIds.delete(key); // deleted by someone: post a new one below
        } else if (isOutcomeUnknown(error)) {
          const settled = await settle();
          if (settled !== null) return { commentId: settled, created: false };
          await ctx.commentIds.delete(key);
        } else {
          throw toGitHubError(op, error);
        }
      }
    }

    try {
      const id = await create();
      await ctx.commentIds.set(key, id);
      return { commentId: id, created: true };
    } catch (error) {
      if (!isOutcomeUnknown(error)) throw toGitHubError(op, error);
    }
    const settled = await settle();
    if (settled !== null) return { commentId: settled, created: true };
    // Reconciled: the first post did not land. One more post, and no further guessing.
    try {
      const id = await create();
      await ctx.commentIds.set(key, id);
      return { commentId: id, created: true };
    } catch (error) {
      throw toGitHubError(op, error);
    }
  };
}

async function findMarked(
  ctx: PortContext,
  owner: string,
  repo: string,
  issueNumber: number,
  marker: string,
): Promise<MarkedComment | null> {
  const pages = ctx.octokit.paginate.iterator(ctx.octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
    // One signal for all pages: give the listing more room than a single request.
    request: requestOptions(ctx, "retry", ctx.timeoutMs * 3),
  });
  for await (const page of pages) {
    for (const comment of page.data) {
      // Only our own comment counts: anyone can paste the marker into theirs.
      const user = comment.user;
      const ours = ctx.botLogin ? user?.login === ctx.botLogin : user?.type === "Bot";
      if (ours && typeof comment.body === "string" && comment.body.startsWith(marker)) {
        return { id: comment.id, body: comment.body };
      }
    }
  }
  return null;
}

export function postReply(ctx: PortContext): GitHubPort["postReply"] {
  return async ({ owner, repo, issueNumber, body }) => {
    try {
      const { data } = await ctx.octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: issueNumber,
        body: truncateUtf8(body, COMMENT_MAX_BYTES, "reply"),
        // No blind retry: a reply posted twice is noise; the error says the outcome is unknown.
        request: requestOptions(ctx, "once"),
      });
      return { commentId: idFrom("postReply", data) };
    } catch (error) {
      throw toGitHubError("postReply", error);
    }
  };
}
