/**
 * The exact fields each gate's seal covers. The app seals with these when a trusted human's
 * command arrives; the engine rebuilds them from what it is about to act on and verifies. Both
 * sides use these builders, so "exactly the fields acted on" cannot drift apart.
 *
 * Every seal also covers the repository the command came from: the engine verifies with the
 * run's own repository, so a command from another repository fails as fields-mismatch even if
 * it names the right run (R6.3), in addition to the engine's own check.
 */
import type { Gate } from "./sealer.js";

interface Common {
  /** The GitHub login that gave the answer. */
  actor: string;
  /** `owner/name` of the repository the answer was given in. */
  repo: string;
}

export function respondFields(
  input: Common & { requestId: string; answer: string },
): Record<string, string> {
  return {
    actor: input.actor,
    repo: input.repo,
    request_id: input.requestId,
    answer: input.answer,
  };
}

export function resumeFields(input: Common): Record<string, string> {
  return { actor: input.actor, repo: input.repo };
}

export function cancelFields(input: Common): Record<string, string> {
  return { actor: input.actor, repo: input.repo };
}

/** For an approval: the head commit and the digest of the verdicts it approves (R9.4). */
export function approvalFields(
  input: Common & { headSha: string; verdictsDigest: string },
): Record<string, string> {
  return {
    actor: input.actor,
    repo: input.repo,
    head_sha: input.headSha,
    verdicts_digest: input.verdictsDigest,
  };
}

export type GateFields = {
  respond: Parameters<typeof respondFields>[0];
  resume: Parameters<typeof resumeFields>[0];
  approve: Parameters<typeof approvalFields>[0];
  cancel: Parameters<typeof cancelFields>[0];
};

export function fieldsFor<G extends Gate>(gate: G, input: GateFields[G]): Record<string, string> {
  switch (gate) {
    case "respond":
      return respondFields(input as GateFields["respond"]);
    case "resume":
      return resumeFields(input as GateFields["resume"]);
    case "approve":
      return approvalFields(input as GateFields["approve"]);
    default:
      return cancelFields(input as GateFields["cancel"]);
  }
}
