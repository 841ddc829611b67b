import type { Role } from "../roles/role-names.js";
import {
  ANNOTATIONS_PER_REQUEST,
  annotationsFor,
  checkSummary,
  checkTitle,
  findingsTable,
} from "./check-output.js";
import { type PortContext, requestOptions } from "./context.js";
import { idFrom, isOutcomeUnknown, toGitHubError } from "./errors.js";
import type { GitHubPort } from "./port.js";
import { CHECK_TEXT_MAX_BYTES, truncateUtf8 } from "./text-limit.js";

export const GATE_CHECK_NAME = "forge/gate";

export function roleCheckName(role: Role): string {
  return `forge/${role}`;
}

export function createRoleCheck(ctx: PortContext): GitHubPort["createRoleCheck"] {
  return async ({ owner, repo, headSha, role, runId }) => {
    const name = roleCheckName(role);
    const create = () =>
      ctx.octokit.rest.checks.create({
        owner,
        repo,
        name,
        head_sha: headSha,
        status: "queued",
        external_id: runId,
        request: requestOptions(ctx, "once"),
      });
    try {
      return idFrom("createRoleCheck", (await create()).data);
    } catch (error) {
      if (!isOutcomeUnknown(error)) throw toGitHubError("createRoleCheck", error);
    }
    // The create may have landed: look for our check run (same name, same run) first.
    let existing: number | undefined;
    try {
      const { data } = await ctx.octokit.rest.checks.listForRef({
        owner,
        repo,
        ref: headSha,
        check_name: name,
        filter: "all",
        per_page: 100,
        request: requestOptions(ctx),
      });
      existing = data.check_runs.find((c) => c.external_id === runId)?.id;
    } catch (error) {
      throw toGitHubError("createRoleCheck", error, "reconciling an unanswered create");
    }
    if (existing !== undefined) return existing;
    try {
      return idFrom("createRoleCheck", (await create()).data);
    } catch (error) {
      throw toGitHubError("createRoleCheck", error);
    }
  };
}

export function updateRoleCheck(ctx: PortContext): GitHubPort["updateRoleCheck"] {
  return async (input) => {
    const { owner, repo, checkRunId, role, status } = input;
    const findings = input.findings ?? [];
    const cancelled = input.cancelled === true;
    const title = checkTitle(role, status, input.decision, cancelled);
    const summary = checkSummary(input.summary, input.decision, findings);
    const patch = (body: Record<string, unknown>) =>
      ctx.octokit.rest.checks.update({
        owner,
        repo,
        check_run_id: checkRunId,
        ...body,
        ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
        request: requestOptions(ctx),
      });
    try {
      if (status === "in_progress") {
        await patch({
          status: "in_progress",
          started_at: ctx.now().toISOString(),
          output: { title, summary },
        });
        return;
      }
      // Fail-closed: success only for an explicit PASS decision.
      const conclusion = cancelled
        ? "cancelled"
        : input.decision?.verdict === "PASS"
          ? "success"
          : "failure";
      const text = findingsTable(findings);
      const output = { title, summary, ...(text ? { text } : {}) };
      const annotations = annotationsFor(findings);
      const batches: (typeof annotations)[] = [];
      for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
        batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
      }
      await patch({
        status: "completed",
        conclusion,
        completed_at: ctx.now().toISOString(),
        output: { ...output, ...(batches[0] ? { annotations: batches[0] } : {}) },
      });
      // GitHub appends the annotations of each further update to those already there. The
      // output (title, summary, text) is sent again so that no update can blank it.
      for (const batch of batches.slice(1)) {
        await patch({ output: { ...output, annotations: batch } });
      }
    } catch (error) {
      throw toGitHubError("updateRoleCheck", error);
    }
  };
}

export function setGate(ctx: PortContext): GitHubPort["setGate"] {
  return async ({ owner, repo, headSha, conclusion, summary, title }) => {
    try {
      // A new completed check run each time: GitHub shows (and branch protection uses) the
      // latest run of a name, so a retried duplicate is harmless.
      const { data } = await ctx.octokit.rest.checks.create({
        owner,
        repo,
        name: GATE_CHECK_NAME,
        head_sha: headSha,
        status: "completed",
        conclusion,
        completed_at: ctx.now().toISOString(),
        output: {
          title: title ?? (conclusion === "success" ? "Gate open" : "Gate closed"),
          summary: truncateUtf8(summary, CHECK_TEXT_MAX_BYTES, "summary"),
        },
        request: requestOptions(ctx),
      });
      return idFrom("setGate", data);
    } catch (error) {
      throw toGitHubError("setGate", error);
    }
  };
}
