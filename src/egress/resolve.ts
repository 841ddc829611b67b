// The proxy resolves names itself (the box has no resolver) and decides on the addresses, then
// connects to exactly the addresses it checked: a second lookup at connect time could answer
// differently (DNS rebinding) and slip a private address past the check.
import { promises as dns } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import {
  type AddressClass,
  canonicalIp,
  classifyAddress,
  type EgressRule,
  isWildcard,
} from "./allowlist.js";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name (tests inject one that records its calls). */
export type EgressLookup = (host: string) => Promise<ResolvedAddress[]>;

export const defaultLookup: EgressLookup = (host) =>
  dns.lookup(host, { all: true, verbatim: true });

/** A target the rules allow by name but that the proxy still refuses (where it resolves). */
export class EgressRefusal extends Error {
  override readonly name = "EgressRefusal";
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** The name did not resolve: not a refusal, the target simply does not exist (502). */
export class EgressLookupError extends Error {
  override readonly name = "EgressLookupError";
}

/**
 * Resolves `host` (already matched by `rule`) and returns the addresses a connection may use.
 * Every one must be public, unless the rule names this exact host (never a `*.` rule): a
 * loopback model endpoint in tests, a registry mirror on the local network. An unspecified
 * address is refused even then — Linux connects 0.0.0.0 to the host itself, so a rule naming
 * it would be loopback in disguise.
 */
export async function resolveTarget(
  host: string,
  rule: EgressRule,
  lookup: EgressLookup,
): Promise<ResolvedAddress[]> {
  const addresses = await lookupAll(host, lookup);
  const exact = !isWildcard(rule);
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (cls === "unspecified" || (cls !== "public" && !exact)) {
      throw new EgressRefusal(refusedText(host, a.address, cls, exact));
    }
  }
  return addresses;
}

/**
 * The model gateway's upstream: public addresses, or loopback (the test and demo model servers),
 * or whatever an IP literal names (the deployment wrote that exact address). A NAME that
 * resolves to a private or link-local address is refused unless the deployment says its model
 * gateway lives on its own network (`allowPrivate`) — a rebound name must not turn the door
 * into a way to the metadata service with the real credential attached.
 */
export async function resolveGateway(
  host: string,
  lookup: EgressLookup,
  allowPrivate: boolean,
): Promise<ResolvedAddress[]> {
  const addresses = await lookupAll(host, lookup);
  const literal = canonicalIp(host) !== null;
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    const ok =
      cls === "public" ||
      cls === "loopback" ||
      (cls !== "unspecified" && (literal || allowPrivate));
    if (!ok) {
      throw new EgressRefusal(
        `the model endpoint ${host} resolves to ${a.address}, a ${cls} address`,
      );
    }
  }
  return addresses;
}

/** The host's resolver may wait long on a dead name server; a box's client should not. */
export const LOOKUP_TIMEOUT_MS = 10_000;

async function lookupAll(host: string, lookup: EgressLookup): Promise<ResolvedAddress[]> {
  const literal = canonicalIp(host);
  if (literal) return [{ address: literal, family: isIP(literal) }];
  let found: ResolvedAddress[];
  let timer: NodeJS.Timeout | undefined;
  try {
    found = await Promise.race([
      lookup(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error("timed out"), { code: "ETIMEOUT" })),
          LOOKUP_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw new EgressLookupError(`${host} does not resolve (${code})`);
  } finally {
    clearTimeout(timer);
  }
  if (!found.length) throw new EgressLookupError(`${host} has no address`);
  return found.map((a) => ({ address: a.address, family: a.family || isIP(a.address) }));
}

function refusedText(host: string, address: string, cls: AddressClass, exact: boolean): string {
  if (cls === "unspecified") return `${host} resolves to ${address}, an unspecified address`;
  return (
    `${host} resolves to ${address}, a ${cls} address; only an entry naming this exact host ` +
    `and port may reach one${exact ? "" : " (a *. entry never does)"}`
  );
}

/**
 * A lookup for net/tls/http that answers with the addresses already checked, never asking DNS
 * again. Handles both shapes node asks for (one address, or all for family auto-selection).
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === "object" ? options.family : undefined;
    const list = addresses.filter((a) => !family || family === 0 || a.family === family);
    const cb = callback as (
      err: NodeJS.ErrnoException | null,
      address: string | ResolvedAddress[],
      family?: number,
    ) => void;
    if (!list.length) {
      const err: NodeJS.ErrnoException = new Error("no checked address of that family");
      err.code = "ENOTFOUND";
      cb(err, "", 0);
    } else if (typeof options === "object" && options.all) cb(null, list);
    else cb(null, list[0]?.address ?? "", list[0]?.family ?? 4);
  };
}

/**
 * A lookup for the gateway's keep-alive agent: every NEW upstream connection resolves and
 * checks the endpoint (resolveGateway) and uses exactly those addresses.
 */
export function checkedGatewayLookup(lookup: EgressLookup, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveGateway(hostname, lookup, allowPrivate).then(
      (addresses) => pinnedLookup(addresses)(hostname, options, callback),
      (error: Error) => (callback as (err: Error) => void)(error),
    );
  };
}
