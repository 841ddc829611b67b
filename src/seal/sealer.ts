/**
 * Sealed human answers (R6.4). Every human answer — respond, resume, approve, cancel — becomes
 * a seal before the engine acts on it: HMAC-SHA256 over the gate type, the run id, an expiry,
 * a nonce and exactly the fields acted on. A seal is valid for 600 s, for one run and one gate,
 * and is consumed once. Any failure is a "no".
 *
 * Token: `fs1.<payload>.<mac>`, both base64url. The payload is JSON
 * `{g: gate, r: runId, e: expiry ms, n: nonce, f: sha256(canonical fields)}`; the MAC covers
 * the exact payload bytes, so the fields are covered through their digest and the verifier
 * recomputes that digest from the fields it is about to act on. The fields themselves are not
 * in the token (an answer can be long, and the token is small enough to journal).
 *
 * Limits (from the design notes): the key is symmetric, so anything that can read it can seal.
 * The seal resists a box that never sees the key — the key never enters a box.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../chain/ports.js";
import { fieldsDigest } from "./canonical.js";

export const GATES = ["respond", "resume", "approve", "cancel"] as const;
export type Gate = (typeof GATES)[number];

/** How long a seal is valid (R6.4). */
export const SEAL_TTL_MS = 600_000;
/** The least key length we accept: HMAC-SHA256 gains nothing above 32 bytes, loses below. */
export const MIN_KEY_BYTES = 32;

const VERSION = "fs1";
const MAC_BYTES = 32;
// Domain separation: a MAC made for a seal can never be mistaken for a MAC of anything else
// made with the same key.
const MAC_CONTEXT = "forgechain-seal-v1\0";
const B64URL = /^[A-Za-z0-9_-]+$/;
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const DIGEST = /^[0-9a-f]{64}$/;
/** A token longer than this is not ours; refuse before decoding anything. */
const MAX_TOKEN_CHARS = 2048;

export interface SealRequest {
  gate: Gate;
  runId: string;
  fields: Readonly<Record<string, string>>;
}

export interface Seal {
  token: string;
  /** ISO 8601; the same value the nonce is consumed with. */
  expiresAt: string;
}

export type VerifyFailure =
  | "malformed"
  | "bad-signature"
  | "expired"
  | "wrong-gate"
  | "wrong-run"
  | "fields-mismatch"
  | "replayed";

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

/** True the first time a nonce is consumed, false ever after (JournalStore.consumeNonce). */
export type ConsumeNonce = (nonce: string, expiresAt: string) => Promise<boolean>;

export interface Sealer {
  seal(request: SealRequest): Seal;
  verify(token: string, expected: SealRequest, consumeNonce: ConsumeNonce): Promise<VerifyResult>;
}

export interface SealerOptions {
  key: Buffer;
  clock: Clock;
  /** Source of nonces; random 16 bytes (base64url) by default. Injected for tests. */
  randomNonce?: () => string;
}

interface Payload {
  g: Gate;
  r: string;
  e: number;
  n: string;
  f: string;
}

export function createSealer(options: SealerOptions): Sealer {
  if (!Buffer.isBuffer(options.key) || options.key.length < MIN_KEY_BYTES) {
    throw new RangeError(`the gate key must be at least ${MIN_KEY_BYTES} bytes`);
  }
  // Copy: a caller that later zeroes or reuses its buffer must not change our key.
  const key = Buffer.from(options.key);
  const clock = options.clock;
  const randomNonce = options.randomNonce ?? (() => randomBytes(16).toString("base64url"));

  const mac = (payloadB64: string): Buffer =>
    createHmac("sha256", key).update(MAC_CONTEXT).update(payloadB64, "ascii").digest();

  return {
    seal({ gate, runId, fields }) {
      if (!(GATES as readonly string[]).includes(gate)) throw new TypeError(`unknown gate ${gate}`);
      if (typeof runId !== "string" || runId.length === 0) throw new TypeError("runId is required");
      const nonce = randomNonce();
      if (!NONCE.test(nonce)) throw new TypeError("nonce must be 16–128 base64url characters");
      const expiry = clock.now().getTime() + SEAL_TTL_MS;
      const payload: Payload = { g: gate, r: runId, e: expiry, n: nonce, f: fieldsDigest(fields) };
      const payloadB64 = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
      const token = `${VERSION}.${payloadB64}.${mac(payloadB64).toString("base64url")}`;
      return { token, expiresAt: new Date(expiry).toISOString() };
    },

    async verify(token, expected, consumeNonce) {
      const parsed = parseToken(token);
      if (!parsed) return fail("malformed");
      // Constant-time comparison; lengths are equal by construction (parseToken checks).
      const wanted = mac(parsed.payloadB64);
      if (wanted.length !== parsed.mac.length || !timingSafeEqual(wanted, parsed.mac)) {
        return fail("bad-signature");
      }
      const p = parsed.payload;
      if (p.g !== expected.gate) return fail("wrong-gate");
      if (p.r !== expected.runId) return fail("wrong-run");
      let digest: string;
      try {
        digest = fieldsDigest(expected.fields);
      } catch {
        return fail("fields-mismatch");
      }
      if (!timingSafeEqual(Buffer.from(digest, "ascii"), Buffer.from(p.f, "ascii"))) {
        return fail("fields-mismatch");
      }
      if (clock.now().getTime() >= p.e) return fail("expired");
      // Last: a seal that fails any other check does not burn its nonce.
      const fresh = await consumeNonce(p.n, new Date(p.e).toISOString());
      if (fresh !== true) return fail("replayed");
      return { ok: true };
    },
  };
}

function fail(reason: VerifyFailure): VerifyResult {
  return { ok: false, reason };
}

function parseToken(token: unknown): { payloadB64: string; payload: Payload; mac: Buffer } | null {
  if (typeof token !== "string" || token.length > MAX_TOKEN_CHARS) return null;
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [version, payloadB64, macB64] = parts as [string, string, string];
  if (version !== VERSION || !B64URL.test(payloadB64) || !B64URL.test(macB64)) return null;
  const macBytes = Buffer.from(macB64, "base64url");
  // Re-encoding must give the same text: no padding games, no ignored trailing bits.
  if (macBytes.length !== MAC_BYTES || macBytes.toString("base64url") !== macB64) return null;
  const payloadBytes = Buffer.from(payloadB64, "base64url");
  if (payloadBytes.toString("base64url") !== payloadB64) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(payloadBytes.toString("utf8"));
  } catch {
    return null;
  }
  if (!isPayload(payload)) return null;
  return { payloadB64, payload, mac: macBytes };
}

function isPayload(value: unknown): value is Payload {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v).sort().join(",");
  return (
    keys === "e,f,g,n,r" &&
    typeof v.g === "string" &&
    (GATES as readonly string[]).includes(v.g) &&
    typeof v.r === "string" &&
    v.r.length > 0 &&
    typeof v.e === "number" &&
    Number.isSafeInteger(v.e) &&
    typeof v.n === "string" &&
    NONCE.test(v.n) &&
    typeof v.f === "string" &&
    DIGEST.test(v.f)
  );
}
