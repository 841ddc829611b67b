import type { ProbotOctokit } from "probot";

/** Probot's `context.octokit`: REST under `.rest`, plus `.graphql` and `.paginate`. */
export type PortOctokit = InstanceType<typeof ProbotOctokit>;

/** Remembers the sticky comment of each run; in memory by default, the journal can back it. */
export interface CommentIdStore {
  get(key: string): Promise<number | null>;
  set(key: string, commentId: number): Promise<void>;
  delete(key: string): Promise<void>;
}

export function memoryCommentIds(): CommentIdStore {
  const ids = new Map<string, number>();
  return {
    get: async (key) => ids.get(key) ?? null,
    set: async (key, id) => {
      ids.set(key, id);
    },
    delete: async (key) => {
      ids.delete(key);
    },
  };
}

export interface PortContext {
  octokit: PortOctokit;
  timeoutMs: number;
  botLogin: string | undefined;
  commentIds: CommentIdStore;
  now: () => Date;
}

/**
 * Per-request options. Every request gets a timeout. `once` turns the retry plugin off for
 * this request: it retries 5xx and network errors blindly, which for a non-idempotent write
 * (a POST that creates a comment, a check run, a PR) could create it twice — those writes are
 * reconciled by looking first instead.
 */
export function requestOptions(
  ctx: PortContext,
  mode: "retry" | "once" = "retry",
  timeoutMs = ctx.timeoutMs,
): { signal: AbortSignal; retries?: number } {
  const signal = AbortSignal.timeout(timeoutMs);
  return mode === "once" ? { signal, retries: 0 } : { signal };
}
