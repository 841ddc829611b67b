/**
 * Typed errors at the GitHub boundary. `outcomeUnknown` is the one fact callers must act on: a
 * write that timed out, hit a 5xx or lost its connection may or may not have happened, so it
 * is reconciled (looked up) before it is ever repeated.
 */
export class GitHubError extends Error {
  override name = "GitHubError";
  constructor(
    /** The port operation, e.g. "upsertRunComment". */
    readonly operation: string,
    /** HTTP status, or null when no response arrived (timeout, network). */
    readonly status: number | null,
    message: string,
    readonly outcomeUnknown: boolean,
    options?: { cause?: unknown },
  ) {
    super(`${operation}: ${message}`, options);
  }
}

/** The HTTP status Octokit attached, if any. Octokit reports network errors and timeouts as 500. */
export function statusOf(error: unknown): number | null {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : null;
}

/** True when the request may have been applied although we got no success answer. */
export function isOutcomeUnknown(error: unknown): boolean {
  if (error instanceof GitHubError) return error.outcomeUnknown;
  const status = statusOf(error);
  return status === null || status >= 500;
}

export function toGitHubError(operation: string, error: unknown, what?: string): GitHubError {
  if (error instanceof GitHubError) return error;
  const status = statusOf(error);
  // Octokit's messages carry GitHub's message, never the token (it redacts authorization).
  const detail = error instanceof Error ? error.message : String(error);
  const message = `${what ? `${what}: ` : ""}${status === null ? "no response" : `HTTP ${status}`}: ${detail}`;
  return new GitHubError(operation, status, message.slice(0, 1000), isOutcomeUnknown(error), {
    cause: error,
  });
}

/**
 * The id GitHub assigned, from a success answer. An answer without one (a body cut off by the
 * timeout while it was being read: Octokit then hands back empty data) says nothing about what
 * happened, so it counts as an unknown outcome.
 */
export function idFrom(operation: string, data: unknown): number {
  const id = (data as { id?: unknown } | null | undefined)?.id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  throw new GitHubError(operation, null, "the answer carried no id", true);
}
