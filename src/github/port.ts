/**
 * The GitHub port: the domain operations forgechain needs from GitHub. `src/github` is the only
 * module that touches Octokit; the engine and the app handlers see this interface only.
 */
import type { Decision } from "../roles/decision.js";
import type { Role } from "../roles/role-names.js";

export interface RepoCoords {
  owner: string;
  repo: string;
}

/** A reviewer/security finding as the output schemas define it (`schemas/<role>.json`). */
export interface Finding {
  severity: "blocking" | "major" | "minor";
  /** `path:line`, `path:start-end`, `path`, or `general`. */
  location: string;
  description: string;
}

/** R1.4: only write, maintain and admin are trusted. */
export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface PullRequestRef {
  number: number;
  /** GraphQL node id, for `disableAutoMerge`. */
  nodeId: string;
  url: string;
  /** False when the repository refused a draft and an ordinary PR was opened instead. */
  draft: boolean;
  /** False when a PR for the head already existed and was returned as is. */
  created: boolean;
}

export interface GitHubPort {
  /** R9.1: a `forge/<role>` check run on the head commit, queued, `external_id` = run id. */
  createRoleCheck(
    input: RepoCoords & { headSha: string; role: Role; runId: string },
  ): Promise<number>;

  /**
   * R9.1: in_progress, or completed with conclusion success only for an explicit PASS decision
   * (no decision, or FAIL, is failure; `cancelled` wins over both). Findings become a table and,
   * when they have a file and line, annotations — 50 per request, the rest as further updates.
   * Summary and text are cut to GitHub's 65 535-byte limit with a visible note; never fails
   * on size.
   */
  updateRoleCheck(
    input: RepoCoords & {
      checkRunId: number;
      role: Role;
      status: "in_progress" | "completed";
      decision?: Decision | null;
      /** The run was cancelled or superseded: conclusion `cancelled`. */
      cancelled?: boolean;
      summary: string;
      findings?: readonly Finding[];
      detailsUrl?: string;
    },
  ): Promise<void>;

  /**
   * R9.2: the run's sticky comment, created once and then edited in place. Found again by its
   * hidden marker `<!-- forgechain:run:<runId> -->`; a write whose outcome is unknown is
   * reconciled by listing the comments before anything is posted again.
   */
  upsertRunComment(
    input: RepoCoords & { issueNumber: number; runId: string; body: string },
  ): Promise<{ commentId: number; created: boolean }>;

  /** R9.5: a draft PR from `head` into `base`; an existing open PR for `head` is returned. */
  openDraftPullRequest(
    input: RepoCoords & { head: string; base: string; title: string; body: string },
  ): Promise<PullRequestRef>;

  /**
   * A later run updated the PR's branch: its body (and title) describe that run now. A write
   * with an unknown outcome is simply repeated by the next update: it sets, it never adds.
   */
  updatePullRequest(
    input: RepoCoords & { number: number; title: string; body: string },
  ): Promise<void>;

  /** R9.3: create or update one file on a branch (contents API). */
  commitRunOutput(
    input: RepoCoords & { branch: string; path: string; content: string; message: string },
  ): Promise<{ commitSha: string | null; changed: boolean }>;

  /** R9.4: the `forge/gate` check run on the head commit. */
  setGate(
    input: RepoCoords & {
      headSha: string;
      conclusion: "success" | "failure";
      summary: string;
      title?: string;
    },
  ): Promise<number>;

  /**
   * R9.4: turn auto-merge off (GraphQL `disablePullRequestAutoMerge`). Resolves when it is off
   * (also when it was never on); rejects when it may still be on.
   */
  disableAutoMerge(input: { pullRequestNodeId: string }): Promise<void>;

  /** R1.4: the actor's permission, asked from the API (never inferred from a payload). */
  getPermission(input: RepoCoords & { username: string }): Promise<Permission>;

  /**
   * An issue's number, title and text, or null when the repository has none by that number.
   * Title and body are untrusted text: the caller clips them as it does a payload's.
   */
  getIssue(input: RepoCoords & { issueNumber: number }): Promise<{
    number: number;
    title: string;
    body: string;
    isPullRequest: boolean;
  } | null>;

  /**
   * Starts `workflowPath` (e.g. `.github/workflows/forgechain.yml`) on `ref` by
   * `workflow_dispatch` with string inputs (never secret: they show in the workflow's run).
   */
  dispatchWorkflow(
    input: RepoCoords & { workflowPath: string; ref: string; inputs: Record<string, string> },
  ): Promise<void>;

  /** Cancels a workflow run (a step's job the App no longer waits for). */
  cancelWorkflowRun(input: RepoCoords & { workflowRunId: number }): Promise<void>;

  /** A short reply on an issue or PR (refusals, help, status). */
  postReply(
    input: RepoCoords & { issueNumber: number; body: string },
  ): Promise<{ commentId: number }>;
}
