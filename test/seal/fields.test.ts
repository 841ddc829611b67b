import { describe, expect, it } from "vitest";
import { verdictsDigest } from "../../src/seal/approval.js";
import { fieldsFor } from "../../src/seal/fields.js";
import { createSealer } from "../../src/seal/sealer.js";

const clock = { now: () => new Date("2026-12-02T12:00:00Z") };
const always = async () => true;

describe("gate fields", () => {
  it("a respond sealed in one repository does not verify for a run of another", async () => {
    const sealer = createSealer({ key: Buffer.alloc(32, 9), clock });
    const answer = { actor: "octocat", requestId: "request-1", answer: "Yes" };
    const fields = fieldsFor("respond", { ...answer, repo: "evil/fork" });
    const { token } = sealer.seal({ gate: "respond", runId: "run-1", fields });
    const asEngineSeesIt = fieldsFor("respond", { ...answer, repo: "octo-org/widgets" });
    expect(
      await sealer.verify(
        token,
        { gate: "respond", runId: "run-1", fields: asEngineSeesIt },
        always,
      ),
    ).toEqual({
      ok: false,
      reason: "fields-mismatch",
    });
  });

  it("each gate covers its own fields", () => {
    const common = { actor: "octocat", repo: "o/r" };
    expect(fieldsFor("resume", common)).toEqual({ actor: "octocat", repo: "o/r" });
    expect(fieldsFor("cancel", common)).toEqual({ actor: "octocat", repo: "o/r" });
    expect(fieldsFor("respond", { ...common, requestId: "q1", answer: "a" })).toEqual({
      actor: "octocat",
      repo: "o/r",
      request_id: "q1",
      answer: "a",
    });
    const digest = verdictsDigest([{ role: "reviewer", verdict: "PASS" }]);
    expect(fieldsFor("approve", { ...common, headSha: "abc", verdictsDigest: digest })).toEqual({
      actor: "octocat",
      repo: "o/r",
      head_sha: "abc",
      verdicts_digest: digest,
    });
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(verdictsDigest([{ role: "reviewer", verdict: "FAIL" }])).not.toBe(digest);
  });
});
