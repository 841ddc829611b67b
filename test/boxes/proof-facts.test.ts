import { describe, expect, it } from "vitest";
import { canonicalJson, isProofValid, proofFacts } from "../../src/boxes/proof-facts.js";
import { detectToolbox, libcFromLdd, toolboxFact } from "../../src/boxes/toolbox.js";
import type { BoxProof } from "../../src/chain/ports.js";

const input = {
  boxKind: "bwrap",
  image: "none",
  toolbox: "linux/x64/glibc-2.36",
  harness: "claude 2.1.332",
  setup: ["npm ci"],
  validate: {
    test: { run: "npm test", advisory: false },
    security: { run: "scan", advisory: true },
  },
  settings: "abc",
  network: "proxy",
};
const proof = (facts: Record<string, string>, ok = true): BoxProof => ({
  boxKey: "bwrap:/r",
  facts,
  ok,
  checks: [],
  provedAt: "2026-12-02T00:00:00.000Z",
});

describe("proof validity (R7.2)", () => {
  it("holds while the facts are unchanged (no time expiry)", () => {
    expect(isProofValid(proof(proofFacts(input)), proofFacts(input))).toEqual({ valid: true });
  });

  it("names the fact that changed: validate, setup, harness, toolbox", () => {
    const p = proof(proofFacts(input));
    const changedValidate = proofFacts({
      ...input,
      validate: { ...input.validate, test: { run: "npm test -- --ci", advisory: false } },
    });
    expect(isProofValid(p, changedValidate)).toMatchObject({ valid: false, changed: ["validate"] });
    expect(isProofValid(p, proofFacts({ ...input, setup: ["npm install"] }))).toMatchObject({
      changed: ["setup"],
    });
    expect(isProofValid(p, proofFacts({ ...input, harness: "claude 2.1.400" }))).toMatchObject({
      changed: ["harness"],
    });
    const r = isProofValid(
      p,
      proofFacts({ ...input, toolbox: "linux/x64/musl-1.2.4", harness: "claude 2.1.400" }),
    );
    expect(r).toMatchObject({ valid: false, changed: ["harness", "toolbox"] });
    expect(r.valid === false && r.reason).toMatch(/harness changed, toolbox changed/);
  });

  it("the validate hash does not depend on key order", () => {
    const reordered = { security: input.validate.security, test: input.validate.test };
    expect(proofFacts({ ...input, validate: reordered }).validate).toBe(proofFacts(input).validate);
    expect(canonicalJson({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe('{"a":[2,{"c":2,"d":1}],"b":1}');
  });

  it("a failed proof or no proof is not valid", () => {
    expect(isProofValid(proof(proofFacts(input), false), proofFacts(input))).toMatchObject({
      valid: false,
      changed: [],
    });
    expect(isProofValid(null, proofFacts(input))).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/no box proof/),
    });
  });
});

describe("toolbox", () => {
  it("tells glibc from musl by ldd --version", () => {
    expect(libcFromLdd("ldd (Debian GLIBC 2.36-9+deb12u14) 2.36\nCopyright")).toEqual({
      libc: "glibc",
      libcVersion: "2.36",
    });
    expect(libcFromLdd("musl libc (x86_64)\nVersion 1.2.4\nDynamic Program Loader")).toEqual({
      libc: "musl",
      libcVersion: "1.2.4",
    });
    expect(libcFromLdd("something else")).toEqual({ libc: "unknown" });
  });

  it("detects this host (Linux, glibc per FACTS)", () => {
    const t = detectToolbox();
    expect(t.os).toBe("linux");
    expect(t.libc).toBe("glibc");
    expect(toolboxFact(t)).toMatch(/^linux\/x64\/glibc-\d+\.\d+/);
  });
});
