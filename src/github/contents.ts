import { type PortContext, requestOptions } from "./context.js";
import { GitHubError, isOutcomeUnknown, statusOf, toGitHubError } from "./errors.js";
import type { GitHubPort } from "./port.js";

/** Paths we write are repository-relative and cannot climb out (`..`) or be absolute. */
export function isSafeRepoPath(path: string): boolean {
  return (
    path.length > 0 &&
    path.length <= 1024 &&
    !path.startsWith("/") &&
    !path.includes("\\") &&
    ![...path].some((c) => c.charCodeAt(0) < 0x20) &&
    path.split("/").every((s) => s !== "" && s !== "." && s !== "..")
  );
}

export function commitRunOutput(ctx: PortContext): GitHubPort["commitRunOutput"] {
  return async ({ owner, repo, branch, path, content, message }) => {
    const op = "commitRunOutput";
    if (!isSafeRepoPath(path))
      throw new GitHubError(op, null, `refusing path ${JSON.stringify(path)}`, false);
    if (branch.trim() === "") throw new GitHubError(op, null, "a branch is required", false);

    /** The file's blob sha on the branch and whether it already holds `content`. */
    const current = async (): Promise<{ sha: string | undefined; same: boolean }> => {
      try {
        const { data } = await ctx.octokit.rest.repos.getContent({
          owner,
          repo,
          path,
          ref: branch,
          request: requestOptions(ctx),
        });
        if (Array.isArray(data) || data.type !== "file") {
          throw new GitHubError(op, null, `${path} on ${branch} is not a file`, false);
        }
        const existing =
          "content" in data && typeof data.content === "string"
            ? Buffer.from(data.content, "base64").toString("utf8")
            : null;
        return { sha: data.sha, same: existing === content };
      } catch (error) {
        if (statusOf(error) === 404) return { sha: undefined, same: false };
        throw toGitHubError(op, error, `reading ${path}`);
      }
    };
    const put = async (sha: string | undefined) => {
      const { data } = await ctx.octokit.rest.repos.createOrUpdateFileContents({
        owner,
        repo,
        path,
        message,
        content: Buffer.from(content, "utf8").toString("base64"),
        branch,
        ...(sha ? { sha } : {}),
        request: requestOptions(ctx, "once"),
      });
      if (!data?.commit) throw new GitHubError(op, null, "the answer carried no commit", true);
      return data.commit.sha ?? null;
    };

    const before = await current();
    if (before.same) return { commitSha: null, changed: false };
    try {
      return { commitSha: await put(before.sha), changed: true };
    } catch (error) {
      const status = statusOf(error);
      // 409/422: the sha moved under us; unknown: the write may have landed. Look again.
      if (status !== 409 && status !== 422 && !isOutcomeUnknown(error))
        throw toGitHubError(op, error);
      const after = await current();
      if (after.same) return { commitSha: null, changed: true };
      try {
        return { commitSha: await put(after.sha), changed: true };
      } catch (second) {
        throw toGitHubError(op, second);
      }
    }
  };
}
