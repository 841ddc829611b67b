import { type PortContext, requestOptions } from "./context.js";
import { toGitHubError } from "./errors.js";
import type { GitHubPort } from "./port.js";

/**
 * Starts the repository's workflow by `workflow_dispatch`. Sent once, never retried blindly: a
 * second dispatch would start a second job for the same step. A dispatch whose outcome is
 * unknown is settled by the step's report timeout instead (the step FAILs and is re-attempted).
 */
export function dispatchWorkflow(ctx: PortContext): GitHubPort["dispatchWorkflow"] {
  return async ({ owner, repo, workflowPath, ref, inputs }) => {
    // The API names a workflow by its file name (or id), not by its path.
    const workflowId = workflowPath.split("/").pop() ?? workflowPath;
    try {
      await ctx.octokit.rest.actions.createWorkflowDispatch({
        owner,
        repo,
        workflow_id: workflowId,
        ref,
        inputs,
        request: requestOptions(ctx, "once"),
      });
    } catch (error) {
      throw toGitHubError("dispatchWorkflow", error);
    }
  };
}

/**
 * Cancels a workflow run. A run that already ended answers 409: nothing is left to cancel, and
 * that is no error.
 */
export function cancelWorkflowRun(ctx: PortContext): GitHubPort["cancelWorkflowRun"] {
  return async ({ owner, repo, workflowRunId }) => {
    try {
      await ctx.octokit.rest.actions.cancelWorkflowRun({
        owner,
        repo,
        run_id: workflowRunId,
        request: requestOptions(ctx, "once"),
      });
    } catch (error) {
      if ((error as { status?: number }).status === 409) return;
      throw toGitHubError("cancelWorkflowRun", error);
    }
  };
}
