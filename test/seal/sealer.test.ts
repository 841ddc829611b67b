import { describe, expect, it } from "vitest";
import { verdictsDigest } from "../../src/seal/approval.js";
import { canonicalFields } from "../../src/seal/canonical.js";
import { createSealer, SEAL_TTL_MS, type SealRequest } from "../../src/seal/sealer.js";

const KEY = Buffer.alloc(32, 7);

function fakeClock(start = Date.parse("2026-12-02T12:00:00Z")) {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/** The journal's consumeNonce, in memory: true once per nonce. */
function nonceStore() {
  const seen = new Map<string, string>();
  return {
    seen,
    consume: async (nonce: string, expiresAt: string) => {
      if (seen.has(nonce)) return false;
      seen.set(nonce, expiresAt);
      return true;
    },
  };
}

const respond: SealRequest = {
  gate: "respond",
  runId: "run-1",
  fields: { request_id: "request-1", answer: "yes", actor: "octocat" },
};

function setup() {
  const clock = fakeClock();
  let counter = 0;
  const sealer = createSealer({
    key: KEY,
    clock,
    randomNonce: () => `nonce-${String(counter++).padStart(12, "0")}`,
  });
  return { clock, sealer, nonces: nonceStore() };
}

function flip(token: string, part: 1 | 2, index = 3): string {
  const parts = token.split(".");
  const chars = [...(parts[part] ?? "")];
  const c = chars[index];
  chars[index] = c === "A" ? "B" : "A";
  parts[part] = chars.join("");
  return parts.join(".");
}

describe("seal / verify", () => {
  it("accepts a fresh seal for the same gate, run and fields, exactly once", async () => {
    const { sealer, nonces } = setup();
    const { token, expiresAt } = sealer.seal(respond);
    expect(expiresAt).toBe("2026-12-02T12:10:00.000Z");
    expect(await sealer.verify(token, respond, nonces.consume)).toEqual({ ok: true });
    // The nonce is consumed with the seal's own expiry, so the journal can prune it later.
    expect([...nonces.seen.values()]).toEqual([expiresAt]);
    expect(await sealer.verify(token, respond, nonces.consume)).toEqual({
      ok: false,
      reason: "replayed",
    });
  });

  it("field order does not matter; the set of fields does", async () => {
    const { sealer, nonces } = setup();
    const { token } = sealer.seal(respond);
    const reordered = {
      ...respond,
      fields: { actor: "octocat", answer: "yes", request_id: "request-1" },
    };
    expect(await sealer.verify(token, reordered, nonces.consume)).toEqual({ ok: true });
  });

  it("refuses a forged token (a flipped byte in the MAC or in the payload)", async () => {
    const { sealer, nonces } = setup();
    const { token } = sealer.seal(respond);
    expect(await sealer.verify(flip(token, 2), respond, nonces.consume)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    // A payload re-encoded with another run id but the old MAC: valid shape, wrong MAC.
    const [v, payload, mac] = token.split(".") as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...decoded, e: decoded.e + 1 })).toString(
      "base64url",
    );
    expect(await sealer.verify(`${v}.${forged}.${mac}`, respond, nonces.consume)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    // A seal made with another key.
    const other = createSealer({ key: Buffer.alloc(32, 8), clock: fakeClock() });
    expect(await sealer.verify(other.seal(respond).token, respond, nonces.consume)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(nonces.seen.size).toBe(0);
  });

  it("refuses an expired seal (clock past 600 s) and does not burn its nonce", async () => {
    const { sealer, nonces, clock } = setup();
    const { token } = sealer.seal(respond);
    clock.advance(SEAL_TTL_MS - 1);
    const early = sealer.seal(respond);
    clock.advance(1);
    expect(await sealer.verify(token, respond, nonces.consume)).toEqual({
      ok: false,
      reason: "expired",
    });
    expect(nonces.seen.size).toBe(0);
    expect(await sealer.verify(early.token, respond, nonces.consume)).toEqual({ ok: true });
  });

  it("refuses a seal for another run", async () => {
    const { sealer, nonces } = setup();
    const { token } = sealer.seal(respond);
    expect(await sealer.verify(token, { ...respond, runId: "run-2" }, nonces.consume)).toEqual({
      ok: false,
      reason: "wrong-run",
    });
  });

  it("refuses a seal for another gate", async () => {
    const { sealer, nonces } = setup();
    const { token } = sealer.seal({ gate: "resume", runId: "run-1", fields: {} });
    expect(
      await sealer.verify(token, { gate: "approve", runId: "run-1", fields: {} }, nonces.consume),
    ).toEqual({ ok: false, reason: "wrong-gate" });
  });

  it("refuses a changed, an extra and a missing field", async () => {
    const { sealer, nonces } = setup();
    const { token } = sealer.seal(respond);
    const changed = { ...respond, fields: { ...respond.fields, answer: "no" } };
    const extra = { ...respond, fields: { ...respond.fields, head_sha: "abc" } };
    const { answer: _dropped, ...rest } = respond.fields;
    const missing = { ...respond, fields: rest };
    for (const expected of [changed, extra, missing]) {
      expect(await sealer.verify(token, expected, nonces.consume)).toEqual({
        ok: false,
        reason: "fields-mismatch",
      });
    }
    expect(nonces.seen.size).toBe(0);
  });

  it("field boundaries cannot be shifted", () => {
    expect(canonicalFields({ a: "b", c: "d" })).not.toBe(canonicalFields({ a: 'b","c":"d' }));
    expect(canonicalFields({ ab: "c" })).not.toBe(canonicalFields({ a: "bc" }));
    expect(() => canonicalFields({ a: 1 as unknown as string })).toThrow(/must be a string/);
  });

  it("an approval covers the head SHA and the verdicts it approves", async () => {
    const { sealer, nonces } = setup();
    const passed = verdictsDigest([
      { role: "reviewer", verdict: "PASS" },
      { role: "security", verdict: "PASS" },
    ]);
    const request = {
      gate: "approve" as const,
      runId: "run-1",
      fields: { actor: "octocat", head_sha: "a".repeat(40), verdicts_digest: passed },
    };
    const { token } = sealer.seal(request);
    const otherHead = { ...request, fields: { ...request.fields, head_sha: "b".repeat(40) } };
    const otherVerdicts = {
      ...request,
      fields: {
        ...request.fields,
        verdicts_digest: verdictsDigest([
          { role: "reviewer", verdict: "PASS" },
          { role: "security", verdict: "FAIL" },
        ]),
      },
    };
    expect((await sealer.verify(token, otherHead, nonces.consume)).ok).toBe(false);
    expect((await sealer.verify(token, otherVerdicts, nonces.consume)).ok).toBe(false);
    expect(await sealer.verify(token, request, nonces.consume)).toEqual({ ok: true });
  });

  it("refuses truncated and malformed tokens before computing anything", async () => {
    const { sealer, nonces } = setup();
    const { token } = sealer.seal(respond);
    const malformed = [
      token.slice(0, -1),
      token.slice(0, -4),
      token.slice(0, token.lastIndexOf(".")),
      // A MAC of the wrong length, cleanly encoded (31 and 33 bytes).
      `${token.slice(0, token.lastIndexOf("."))}.${Buffer.alloc(31, 1).toString("base64url")}`,
      `${token.slice(0, token.lastIndexOf("."))}.${Buffer.alloc(33, 1).toString("base64url")}`,
      "",
      "fs1..",
      `fs2${token.slice(3)}`,
      `${token}.x`,
      `${token}=`,
      token.replace(/\./g, "+"),
      "x".repeat(5000),
      `fs1.${Buffer.from("{}").toString("base64url")}.${token.split(".")[2]}`,
      `fs1.${Buffer.from("not json").toString("base64url")}.${token.split(".")[2]}`,
    ];
    for (const bad of malformed) {
      expect(await sealer.verify(bad, respond, nonces.consume)).toEqual({
        ok: false,
        reason: "malformed",
      });
    }
    expect(await sealer.verify(42 as unknown as string, respond, nonces.consume)).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(nonces.seen.size).toBe(0);
  });

  it("a consumeNonce that answers anything but true counts as replayed", async () => {
    const { sealer } = setup();
    const { token } = sealer.seal(respond);
    const truthy = async () => "yes" as unknown as boolean;
    expect(await sealer.verify(token, respond, truthy)).toEqual({ ok: false, reason: "replayed" });
  });

  it("refuses a short key and copies the key it is given", async () => {
    expect(() => createSealer({ key: Buffer.alloc(31), clock: fakeClock() })).toThrow(/32 bytes/);
    const key = Buffer.alloc(32, 1);
    const clock = fakeClock();
    const sealer = createSealer({ key, clock });
    const { token } = sealer.seal(respond);
    key.fill(0);
    const nonces = nonceStore();
    expect(await sealer.verify(token, respond, nonces.consume)).toEqual({ ok: true });
  });

  it("default nonces are random and distinct", () => {
    const sealer = createSealer({ key: KEY, clock: fakeClock() });
    const a = sealer.seal(respond).token;
    const b = sealer.seal(respond).token;
    expect(a).not.toBe(b);
  });
});
