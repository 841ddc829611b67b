// An OIDC issuer's signing keys, found through its discovery document (GitHub's Actions issuer,
// or a GHES host's): fetched once and cached per process, refetched by jose when an unknown key
// id appears. Out of reach is an error — nothing about a token was decided.
import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from "jose";
import { z } from "zod";

const DISCOVERY_TIMEOUT_MS = 5000;

/** The issuer's keys could not be fetched: nothing was decided about the token. */
export class IssuerKeysUnavailableError extends Error {
  override readonly name = "IssuerKeysUnavailableError";
  constructor(
    readonly issuer: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`the keys of ${issuer} could not be fetched: ${detail}`, options);
  }
}

/**
 * Each issuer's signing keys, found through its discovery document and kept by jose's remote
 * key set (cached, refetched when an unknown key id appears, at most every 30 s). One cache
 * per process: keys are public and the same for every installation.
 */
export class IssuerKeyCache {
  private readonly byIssuer = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly timeoutMs = DISCOVERY_TIMEOUT_MS) {}

  keysFor(issuer: string): JWTVerifyGetKey {
    let keys = this.byIssuer.get(issuer);
    if (!keys) {
      keys = issuerKeys(issuer, this.timeoutMs);
      this.byIssuer.set(issuer, keys);
    }
    return keys;
  }
}

const Discovery = z.object({ issuer: z.string(), jwks_uri: z.url() });

/** A key getter for jose that discovers the issuer's key set on first use. */
function issuerKeys(issuer: string, timeoutMs: number): JWTVerifyGetKey {
  let remote: ReturnType<typeof createRemoteJWKSet> | undefined;
  let discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  return async (header, token) => {
    if (!remote) {
      // A failed discovery is not remembered: the next report tries again.
      discovering ??= discover(issuer, timeoutMs).finally(() => {
        discovering = undefined;
      });
      remote = await discovering;
    }
    try {
      return await remote(header, token);
    } catch (err) {
      // These say the token names no key of the issuer; anything else is the fetch failing.
      if (
        err instanceof errors.JWKSNoMatchingKey ||
        err instanceof errors.JWKSMultipleMatchingKeys
      ) {
        throw err;
      }
      throw new IssuerKeysUnavailableError(issuer, describe(err), { cause: err });
    }
  };
}

async function discover(issuer: string, timeoutMs: number) {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  let body: unknown;
  try {
    const response = await fetch(url, {
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json" },
    });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    body = await response.json();
  } catch (err) {
    throw new IssuerKeysUnavailableError(issuer, describe(err), { cause: err });
  }
  const doc = Discovery.safeParse(body);
  // The document must name its own issuer, and keys served from elsewhere are not trusted.
  if (!doc.success || doc.data.issuer !== issuer) {
    throw new IssuerKeysUnavailableError(issuer, "its discovery document does not describe it");
  }
  const jwksUrl = new URL(doc.data.jwks_uri);
  if (jwksUrl.origin !== new URL(issuer).origin) {
    throw new IssuerKeysUnavailableError(issuer, `its keys are served from ${jwksUrl.origin}`);
  }
  return createRemoteJWKSet(jwksUrl, { timeoutDuration: timeoutMs });
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : "";
  return `${err.message}${cause}`;
}
