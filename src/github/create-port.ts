import { createRoleCheck, setGate, updateRoleCheck } from "./checks.js";
import { postReply, upsertRunComment } from "./comments.js";
import { commitRunOutput } from "./contents.js";
import {
  type CommentIdStore,
  memoryCommentIds,
  type PortContext,
  type PortOctokit,
} from "./context.js";
import { getIssue } from "./issues.js";
import { getPermission } from "./permission.js";
import type { GitHubPort } from "./port.js";
import { disableAutoMerge, openDraftPullRequest, updatePullRequest } from "./pulls.js";
import { cancelWorkflowRun, dispatchWorkflow } from "./workflows.js";

export interface GitHubPortOptions {
  /** Probot's `context.octokit` (or any ProbotOctokit): throttling and retry plugins on. */
  octokit: PortOctokit;
  /** Per-request timeout; a write that times out is reconciled, not repeated. Default 10 s. */
  timeoutMs?: number;
  /**
   * The app's own login (`<app-slug>[bot]`). When set, only its comments count as the run's
   * sticky comment; otherwise any bot's comment with the marker does.
   */
  botLogin?: string;
  /** Where sticky comment ids are remembered; in memory by default. */
  commentIds?: CommentIdStore;
  now?: () => Date;
}

export function createGitHubPort(options: GitHubPortOptions): GitHubPort {
  const ctx: PortContext = {
    octokit: options.octokit,
    timeoutMs: options.timeoutMs ?? 10_000,
    botLogin: options.botLogin,
    commentIds: options.commentIds ?? memoryCommentIds(),
    now: options.now ?? (() => new Date()),
  };
  return {
    createRoleCheck: createRoleCheck(ctx),
    updateRoleCheck: updateRoleCheck(ctx),
    upsertRunComment: upsertRunComment(ctx),
    openDraftPullRequest: openDraftPullRequest(ctx),
    updatePullRequest: updatePullRequest(ctx),
    commitRunOutput: commitRunOutput(ctx),
    setGate: setGate(ctx),
    disableAutoMerge: disableAutoMerge(ctx),
    getPermission: getPermission(ctx),
    getIssue: getIssue(ctx),
    postReply: postReply(ctx),
    dispatchWorkflow: dispatchWorkflow(ctx),
    cancelWorkflowRun: cancelWorkflowRun(ctx),
  };
}
