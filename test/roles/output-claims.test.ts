// outputClaims: what a runner may read of a step's raw output to decide what to measure. For
// the builder and the architect its `pass` must be exactly the engine's PASS — the runner runs
// the builder's checks on it, and a check skipped where the engine would PASS is a hole.
import { describe, expect, it } from "vitest";
import { createOutputValidator } from "../../src/roles/output-schema.js";
import type { Role } from "../../src/roles/role-names.js";
import { decideVerdict, outputClaims } from "../../src/roles/verdict.js";
import { envelope, REPO, validOutput } from "./output-schema-fixtures.js";

const validator = createOutputValidator(`${REPO}/schemas`);

const cases = (role: Role): Array<[string, unknown]> => [
  ["the recorded PASS envelope", envelope(`${role}-pass`)],
  ["the bare PASS object", validOutput(role)],
  ["verdict FAIL", { ...validOutput(role), verdict: "FAIL" }],
  ["a lower-case pass", { ...validOutput(role), verdict: "pass" }],
  ["a short summary", { ...validOutput(role), summary: "ok" }],
  ["an extra property", { ...validOutput(role), extra: 1 }],
  ["an errored envelope", { ...envelope(`${role}-pass`), is_error: true }],
  ["no structured output", { ...envelope(`${role}-pass`), structured_output: null }],
  ["null", null],
  ["text", "PASS"],
];

describe.each<Role>(["architect", "builder"])("outputClaims: %s", (role) => {
  it.each(cases(role))("%s: claims PASS exactly when the verdict is PASS", async (_n, raw) => {
    const { decision } = await decideVerdict(role, raw, { validator });
    expect(outputClaims(role, raw, validator).pass).toBe(decision.verdict === "PASS");
  });
});

describe("outputClaims", () => {
  it("sees a request, whatever the verdict", () => {
    const request = { id: "req-1", kind: "clarification", question: "Who?", context: "x" };
    const raw = { ...validOutput("architect"), verdict: "FAIL", request };
    expect(outputClaims("architect", raw, validator)).toEqual({ pass: false, asks: true });
  });

  it("is no verdict: a reviewer's PASS with a blocking finding still claims PASS", () => {
    const out = validOutput("reviewer");
    const [first] = out.findings as Array<Record<string, unknown>>;
    const raw = { ...out, findings: [{ ...first, severity: "blocking" }] };
    expect(outputClaims("reviewer", raw, validator).pass).toBe(true);
  });

  it("claims nothing when its schemas cannot be read, instead of throwing", () => {
    const broken = {
      validateStructured: () => {
        throw new Error("no schemas");
      },
    } as unknown as typeof validator;
    expect(outputClaims("builder", validOutput("builder"), broken)).toEqual({
      pass: false,
      asks: false,
    });
  });
});
