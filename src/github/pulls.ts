import { type PortContext, requestOptions } from "./context.js";
import { GitHubError, isOutcomeUnknown, statusOf, toGitHubError } from "./errors.js";
import type { GitHubPort, PullRequestRef } from "./port.js";
import { COMMENT_MAX_BYTES, truncateUtf8 } from "./text-limit.js";

export function openDraftPullRequest(ctx: PortContext): GitHubPort["openDraftPullRequest"] {
  return async ({ owner, repo, head, base, title, body }) => {
    const op = "openDraftPullRequest";
    // The list filter wants `owner:branch`; create takes the bare branch for the same repo.
    const headFilter = head.includes(":") ? head : `${owner}:${head}`;
    const findOpen = async (): Promise<Omit<PullRequestRef, "created"> | null> => {
      try {
        const { data } = await ctx.octokit.rest.pulls.list({
          owner,
          repo,
          head: headFilter,
          state: "open",
          per_page: 1,
          request: requestOptions(ctx),
        });
        const pr = data[0];
        return pr
          ? { number: pr.number, nodeId: pr.node_id, url: pr.html_url, draft: pr.draft === true }
          : null;
      } catch (error) {
        throw toGitHubError(op, error, "looking for an open pull request");
      }
    };
    const existing = await findOpen();
    if (existing) return { ...existing, created: false };

    const create = async (draft: boolean): Promise<PullRequestRef> => {
      const { data } = await ctx.octokit.rest.pulls.create({
        owner,
        repo,
        head,
        base,
        title: title.slice(0, 256),
        body: truncateUtf8(body, COMMENT_MAX_BYTES, "pull request body"),
        draft,
        request: requestOptions(ctx, "once"),
      });
      if (typeof data?.number !== "number") {
        throw new GitHubError(op, null, "the answer carried no pull request number", true);
      }
      return {
        number: data.number,
        nodeId: data.node_id,
        url: data.html_url,
        draft: data.draft === true,
        created: true,
      };
    };
    try {
      return await create(true);
    } catch (error) {
      const status = statusOf(error);
      const message = error instanceof Error ? error.message : "";
      if (status === 422 && /draft/i.test(message) && !/already exists/i.test(message)) {
        // Plans without draft PRs refuse `draft: true`; an ordinary PR is still gated by
        // forge/gate, and `draft: false` in the result lets the caller say so.
        try {
          return await create(false);
        } catch (second) {
          throw toGitHubError(op, second);
        }
      }
      if (status !== 422 && !isOutcomeUnknown(error)) throw toGitHubError(op, error);
      // 422 "already exists" (a race) or an unanswered create: look again.
      const found = await findOpen();
      if (found) return { ...found, created: isOutcomeUnknown(error) };
      throw toGitHubError(op, error);
    }
  };
}

export function updatePullRequest(ctx: PortContext): GitHubPort["updatePullRequest"] {
  return async ({ owner, repo, number, title, body }) => {
    try {
      await ctx.octokit.rest.pulls.update({
        owner,
        repo,
        pull_number: number,
        title: title.slice(0, 256),
        body: truncateUtf8(body, COMMENT_MAX_BYTES, "pull request body"),
        // Setting the same text twice is harmless: retries are fine here.
        request: requestOptions(ctx),
      });
    } catch (error) {
      throw toGitHubError("updatePullRequest", error);
    }
  };
}

const DISABLE_AUTO_MERGE = `mutation DisableAutoMerge($id: ID!) {
  disablePullRequestAutoMerge(input: { pullRequestId: $id }) {
    pullRequest { id autoMergeRequest { enabledAt } }
  }
}`;

const AUTO_MERGE_STATE = `query AutoMergeState($id: ID!) {
  node(id: $id) { ... on PullRequest { id autoMergeRequest { enabledAt } } }
}`;

export function disableAutoMerge(ctx: PortContext): GitHubPort["disableAutoMerge"] {
  return async ({ pullRequestNodeId }) => {
    const op = "disableAutoMerge";
    try {
      await ctx.octokit.graphql(DISABLE_AUTO_MERGE, {
        id: pullRequestNodeId,
        request: requestOptions(ctx),
      });
      return;
    } catch (error) {
      // GitHub answers an error when there is nothing to disable; what matters is the state
      // afterwards, so ask for it: off is success, on (or unknown) is a failure.
      let state: { node?: { autoMergeRequest?: unknown } | null };
      try {
        state = await ctx.octokit.graphql(AUTO_MERGE_STATE, {
          id: pullRequestNodeId,
          request: requestOptions(ctx),
        });
      } catch (second) {
        throw toGitHubError(op, second, "checking auto-merge after a failed disable");
      }
      if (state.node && state.node.autoMergeRequest === null) return;
      const failure = toGitHubError(op, error);
      throw new GitHubError(
        op,
        failure.status,
        `auto-merge is still on: ${failure.message}`,
        false,
        {
          cause: error,
        },
      );
    }
  };
}
