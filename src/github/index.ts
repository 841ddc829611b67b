export {
  type ActionsClaims,
  type ActionsTokenDeps,
  type ActionsTokenResult,
  CLOCK_TOLERANCE_S,
  type ExpectedActionsToken,
  GITHUB_ACTIONS_ISSUER,
  ghesActionsIssuer,
  IssuerKeyCache,
  IssuerKeysUnavailableError,
  stepAudience,
  type TokenRefusal,
  verifyActionsToken,
} from "./actions-oidc.js";
export { ANNOTATIONS_PER_REQUEST, MAX_ANNOTATIONS, parseLocation } from "./check-output.js";
export { GATE_CHECK_NAME, roleCheckName } from "./checks.js";
export { runMarker } from "./comments.js";
export { isSafeRepoPath } from "./contents.js";
export { type CommentIdStore, memoryCommentIds, type PortOctokit } from "./context.js";
export { createGitHubPort, type GitHubPortOptions } from "./create-port.js";
export { GitHubError, isOutcomeUnknown } from "./errors.js";
export { isTrustedPermission } from "./permission.js";
export type { Finding, GitHubPort, Permission, PullRequestRef, RepoCoords } from "./port.js";
export { CHECK_TEXT_MAX_BYTES, COMMENT_MAX_BYTES, truncateUtf8 } from "./text-limit.js";
