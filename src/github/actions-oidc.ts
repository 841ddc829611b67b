// Verifies the OIDC token a GitHub Actions job presents when it reports a role step back to the
// App. The token is GitHub's signed statement of which repository, workflow and event the job
// runs for; the audience the job asked for names the one step it may report. Anything wrong
// with the token is a refusal with a plain reason; only the issuer's keys being out of reach is
// an error, because then nothing was decided and the caller should try again later.
import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import { z } from "zod";
import { IssuerKeyCache, IssuerKeysUnavailableError } from "./oidc-issuer-keys.js";

export { IssuerKeyCache, IssuerKeysUnavailableError };

export const GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";
/** Tokens are checked against clocks that may differ by this much (seconds). */
export const CLOCK_TOLERANCE_S = 60;
/** A job asks for its token right before it reports: an older token was held back. */
export const MAX_TOKEN_AGE_S = 600;
/** GitHub's tokens are about 1 KiB; anything far larger is not one of them. */
const MAX_TOKEN_CHARS = 16 * 1024;

/** The issuer of a GitHub Enterprise Server's Actions tokens. */
export function ghesActionsIssuer(host: string): string {
  return `https://${host}/_services/token`;
}

/** The audience a job asks for (`core.getIDToken(audience)`) to report exactly this step. */
export function stepAudience(runId: string, index: number, attempt: number): string {
  return `forgechain:${runId}:${index}:${attempt}`;
}

export interface ExpectedActionsToken {
  /** `stepAudience(...)` of the step being reported. */
  audience: string;
  /** `owner/repo` the App dispatched the workflow in. */
  repository: string;
  /** GitHub's numeric id of that repository: survives a rename, so a re-created name fails. */
  repositoryId?: string | number;
  /** The repository's forgechain workflow, e.g. `.github/workflows/forgechain.yml`. */
  workflowPath: string;
  /** The ref the App dispatched on (`refs/heads/main`): when given, the workflow must be from it. */
  ref?: string;
}

/** What the App learns about the job from a verified token. */
export interface ActionsClaims {
  jti: string;
  /** GitHub's workflow run id (`run_id`), not forgechain's run. */
  runId: string;
  runAttempt: string;
  repository: string;
  repositoryId: string;
  sha: string;
  ref: string;
  actor: string;
  workflowRef: string;
  runnerEnvironment: string | null;
  /** When the token stops being accepted, clock tolerance included (ISO). */
  acceptedUntil: string;
}

export type TokenRefusal =
  | "malformed"
  | "signature"
  | "issuer"
  | "expired"
  | "not-yet-valid"
  | "audience"
  | "repository"
  | "workflow"
  | "event";

export type ActionsTokenResult =
  | { ok: true; claims: ActionsClaims }
  | { ok: false; kind: TokenRefusal; reason: string };

const sharedKeys = new IssuerKeyCache();

export interface ActionsTokenDeps {
  /** Default: GitHub.com's Actions issuer. */
  issuer?: string;
  /** Default: one cache shared by the process. */
  keys?: IssuerKeyCache;
  now?: () => Date;
}

/**
 * Verifies `token` for the step `expected` names. Never throws for a bad token; throws
 * `IssuerKeysUnavailableError` when the issuer's keys cannot be fetched.
 */
export async function verifyActionsToken(
  token: string,
  expected: ExpectedActionsToken,
  deps: ActionsTokenDeps = {},
): Promise<ActionsTokenResult> {
  const issuer = deps.issuer ?? GITHUB_ACTIONS_ISSUER;
  // Read before verifying so that junk and tokens of other issuers are refused without a
  // request to the issuer; the signature check below still decides for everything else.
  const early = precheck(token, issuer);
  if (early) return early;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, (deps.keys ?? sharedKeys).keysFor(issuer), {
      issuer,
      audience: expected.audience,
      algorithms: ["RS256"],
      clockTolerance: CLOCK_TOLERANCE_S,
      maxTokenAge: MAX_TOKEN_AGE_S,
      requiredClaims: ["exp", "iat", "jti"],
      currentDate: deps.now?.(),
    }));
  } catch (err) {
    if (err instanceof IssuerKeysUnavailableError) throw err;
    return refusalFromJose(err);
  }
  return checkGitHubClaims(payload, expected);
}

function refuse(kind: TokenRefusal, reason: string): ActionsTokenResult {
  return { ok: false, kind, reason };
}

function precheck(token: string, issuer: string): ActionsTokenResult | null {
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_CHARS) {
    return refuse("malformed", "the token is missing or not a GitHub Actions token");
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  let iss: unknown;
  try {
    header = decodeProtectedHeader(token);
    iss = decodeJwt(token).iss;
  } catch {
    return refuse("malformed", "the token is not a well-formed JSON Web Token");
  }
  if (header.alg !== "RS256" || typeof header.kid !== "string") {
    return refuse("signature", "the token is not signed the way GitHub signs its tokens");
  }
  if (iss !== issuer) return refuse("issuer", `the token was not issued by ${issuer}`);
  return null;
}

function refusalFromJose(err: unknown): ActionsTokenResult {
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys ||
    err instanceof errors.JOSEAlgNotAllowed
  ) {
    return refuse("signature", "the token's signature does not verify with the issuer's keys");
  }
  if (err instanceof errors.JWTExpired) return refuse("expired", "the token has expired");
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === "missing") {
      return refuse("malformed", `the token has no "${err.claim}" claim`);
    }
    if (err.claim === "aud") {
      return refuse("audience", "the token was issued for another step (audience)");
    }
    if (err.claim === "nbf" || err.claim === "iat") {
      return refuse("not-yet-valid", "the token is not valid yet");
    }
  }
  if (err instanceof errors.JOSEError) {
    return refuse("malformed", "the token is not a well-formed JSON Web Token");
  }
  // Not a token problem (a bug, or a key jose cannot use): let it surface.
  throw err;
}

// GitHub's claims are strings, ids included. Only what the App binds to or reports is read.
const GitHubClaims = z.object({
  jti: z.string().min(1).max(256),
  exp: z.number(),
  repository: z.string().min(1),
  repository_id: z.string().min(1),
  event_name: z.string(),
  workflow_ref: z.string().optional(),
  job_workflow_ref: z.string().optional(),
  run_id: z.string().min(1),
  run_attempt: z.string().min(1),
  sha: z.string(),
  ref: z.string(),
  actor: z.string(),
  runner_environment: z.string().optional(),
});

function checkGitHubClaims(
  payload: JWTPayload,
  expected: ExpectedActionsToken,
): ActionsTokenResult {
  const parsed = GitHubClaims.safeParse(payload);
  if (!parsed.success) {
    return refuse("malformed", "the token lacks the claims GitHub Actions puts in its tokens");
  }
  const c = parsed.data;
  // GitHub names are case-insensitive; ids are exact.
  if (c.repository.toLowerCase() !== expected.repository.toLowerCase()) {
    return refuse("repository", `the token is for ${c.repository}, not ${expected.repository}`);
  }
  if (expected.repositoryId !== undefined && c.repository_id !== String(expected.repositoryId)) {
    return refuse("repository", `the token is for another repository than ${expected.repository}`);
  }
  if (c.event_name !== "workflow_dispatch") {
    return refuse("event", `the job was started by ${c.event_name}, not by the App's dispatch`);
  }
  // workflow_ref is the workflow that was dispatched; job_workflow_ref differs only when the
  // job runs a reusable workflow, and is the fallback on servers that lack workflow_ref.
  const workflowRef = c.workflow_ref ?? c.job_workflow_ref ?? "";
  if (!isExpectedWorkflow(workflowRef, expected)) {
    return refuse(
      "workflow",
      `the job ran ${workflowRef || "an unnamed workflow"}, not ${expected.workflowPath}`,
    );
  }
  const claims: ActionsClaims = {
    jti: c.jti,
    runId: c.run_id,
    runAttempt: c.run_attempt,
    repository: c.repository,
    repositoryId: c.repository_id,
    sha: c.sha,
    ref: c.ref,
    actor: c.actor,
    workflowRef,
    runnerEnvironment: c.runner_environment ?? null,
    acceptedUntil: new Date((c.exp + CLOCK_TOLERANCE_S) * 1000).toISOString(),
  };
  return { ok: true, claims };
}

/** `<owner>/<repo>/<path>@<ref>`: the owner/repo part compared as GitHub does, ignoring case. */
function isExpectedWorkflow(workflowRef: string, expected: ExpectedActionsToken): boolean {
  const repo = expected.repository;
  if (workflowRef.slice(0, repo.length).toLowerCase() !== repo.toLowerCase()) return false;
  const rest = workflowRef.slice(repo.length);
  const head = `/${expected.workflowPath}@`;
  if (!rest.startsWith(head) || rest.length === head.length) return false;
  return expected.ref === undefined || rest.slice(head.length) === expected.ref;
}
