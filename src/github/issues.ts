import { type PortContext, requestOptions } from "./context.js";
import { statusOf, toGitHubError } from "./errors.js";
import type { GitHubPort } from "./port.js";

/**
 * An issue as a run's task needs it: asked from the API when the event names only its number
 * (a workflow_dispatch with an `issue` input). Null when there is no such issue here.
 */
export function getIssue(ctx: PortContext): GitHubPort["getIssue"] {
  return async ({ owner, repo, issueNumber }) => {
    try {
      const { data } = await ctx.octokit.rest.issues.get({
        owner,
        repo,
        issue_number: issueNumber,
        request: requestOptions(ctx),
      });
      return {
        number: data.number,
        title: data.title ?? "",
        body: data.body ?? "",
        isPullRequest: data.pull_request !== undefined && data.pull_request !== null,
      };
    } catch (error) {
      // 404: no such issue; 410: it was deleted. Either way there is nothing to work on.
      const status = statusOf(error);
      if (status === 404 || status === 410) return null;
      throw toGitHubError("getIssue", error);
    }
  };
}
