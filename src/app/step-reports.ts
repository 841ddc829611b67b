// A role step run by a GitHub Actions job comes back to the App as a report: the step's raw
// result and the job's OIDC token. The report is accepted only for a step the App dispatched
// and still waits for, with a token GitHub issued to that repository's forgechain workflow for
// exactly that step, and only once. Accepting says who ran the step, not whether it passed:
// the engine still judges the result. Refusals are returned for the caller to journal.
import { z } from "zod";
import type { JournalStore } from "../chain/ports.js";
import {
  type ActionsClaims,
  type ActionsTokenDeps,
  stepAudience,
  type TokenRefusal,
  verifyActionsToken,
} from "../github/index.js";

/** The raw result a job may send; the largest role outputs are far below this. */
export const MAX_RESULT_BYTES = 2 * 1024 * 1024;
const MAX_TOKEN_CHARS = 16 * 1024;
// Kept apart from seal nonces in the journal's one nonce table.
const JTI_PREFIX = "actions-jti:";

const StepReport = z.strictObject({
  token: z.string().min(1).max(MAX_TOKEN_CHARS),
  runId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
  index: z.number().int().min(0).max(10_000),
  attempt: z.number().int().min(1).max(1_000),
  result: z.unknown(),
});
export type StepReport = z.infer<typeof StepReport>;

/** Where the App sent a step: the token must come from there. */
export interface DispatchedStep {
  /** `owner/repo`. */
  repository: string;
  repositoryId?: string | number;
  /** e.g. `.github/workflows/forgechain.yml`. */
  workflowPath: string;
  /** The ref the workflow was dispatched on, when the App pins it. */
  ref?: string;
}

export interface StepReportDeps {
  /**
   * The step the App dispatched and still waits for, with where it sent it; null when it did
   * not dispatch that step attempt or no longer waits for it.
   */
  dispatched(
    runId: string,
    index: number,
    attempt: number,
  ): DispatchedStep | null | Promise<DispatchedStep | null>;
  store: Pick<JournalStore, "consumeNonce">;
  /** Issuer, key cache and clock for the token check. */
  verify?: ActionsTokenDeps;
}

export type ReportRefusal = "malformed-report" | "too-large" | "not-dispatched" | "replay";

export type StepReportOutcome =
  | {
      ok: true;
      runId: string;
      index: number;
      attempt: number;
      result: unknown;
      claims: ActionsClaims;
    }
  | { ok: false; kind: ReportRefusal | TokenRefusal; reason: string };

/**
 * Accepts or refuses one report. Throws only `IssuerKeysUnavailableError` (from the token
 * check): the issuer could not be asked, so the job should send its report again.
 */
export async function acceptStepReport(
  report: unknown,
  deps: StepReportDeps,
): Promise<StepReportOutcome> {
  const parsed = StepReport.safeParse(report);
  if (!parsed.success) {
    return refuse(
      "malformed-report",
      `the report is not a step report: ${firstIssue(parsed.error)}`,
    );
  }
  const { token, runId, index, attempt, result } = parsed.data;
  const size = resultBytes(result);
  if (size === null) return refuse("malformed-report", "the report's result is not JSON");
  if (size > MAX_RESULT_BYTES) {
    return refuse(
      "too-large",
      `the report's result is ${size} bytes, more than the ${MAX_RESULT_BYTES} accepted`,
    );
  }
  const authorized = await authorizeStepJob({ token, runId, index, attempt }, deps);
  if (!authorized.ok) return authorized;
  return { ok: true, runId, index, attempt, result, claims: authorized.claims };
}

/**
 * Whether `token` lets a job act for this step attempt: the App dispatched it and still waits,
 * the token is GitHub's for that repository's workflow and names exactly this step, and it was
 * not used before. Throws only `IssuerKeysUnavailableError`.
 */
export async function authorizeStepJob(
  job: { token: string; runId: string; index: number; attempt: number },
  deps: StepReportDeps,
): Promise<
  | { ok: true; claims: ActionsClaims }
  | { ok: false; kind: ReportRefusal | TokenRefusal; reason: string }
> {
  const { token, runId, index, attempt } = job;
  const step = await deps.dispatched(runId, index, attempt);
  if (!step) {
    return {
      ok: false,
      kind: "not-dispatched",
      reason: `step ${index} attempt ${attempt} of run ${runId} is not waiting for a job on Actions`,
    };
  }
  const verified = await verifyActionsToken(
    token,
    {
      audience: stepAudience(runId, index, attempt),
      repository: step.repository,
      repositoryId: step.repositoryId,
      workflowPath: step.workflowPath,
      ref: step.ref,
    },
    deps.verify,
  );
  if (!verified.ok) return verified;
  // Consumed only after the token verified, so a forged report cannot burn a real token's id;
  // kept until the token could no longer be accepted anyway.
  const claims = verified.claims;
  const fresh = await deps.store.consumeNonce(`${JTI_PREFIX}${claims.jti}`, claims.acceptedUntil);
  if (!fresh) return { ok: false, kind: "replay", reason: "this token was already used" };
  return { ok: true, claims };
}

function refuse(kind: ReportRefusal, reason: string): StepReportOutcome {
  return { ok: false, kind, reason };
}

/** UTF-8 size of the result as JSON, or null when it has no JSON form. */
function resultBytes(result: unknown): number | null {
  if (result === undefined) return null;
  try {
    const json = JSON.stringify(result);
    return json === undefined ? null : Buffer.byteLength(json, "utf8");
  } catch {
    return null;
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}
