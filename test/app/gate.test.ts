import { describe, expect, it } from "vitest";
import { APPROVED_EVENT, evaluateGate, runVerdictsDigest } from "../../src/app/gate.js";
import type { RunEvent, RunRecord, StepRecord } from "../../src/chain/types.js";
import type { Role } from "../../src/roles/role-names.js";

const HEAD = "b".repeat(40);

function run(state: RunRecord["state"] = "passed", protectedPaths: string[] = []): RunRecord {
  return {
    id: "run1",
    chain: "change",
    state,
    task: { title: "t", body: "" },
    repo: { remote: "x", baseRef: "main" },
    baseSha: "a".repeat(40),
    branch: "forge/1-t",
    snapshot: {
      digest: "d",
      content: {
        config: { protectedPaths: protectedPaths.map((pattern) => ({ pattern, origin: "repo" })) },
      },
    },
    requestBudget: 1,
    createdAt: "",
    updatedAt: "",
  };
}

function steps(verdicts: Array<"PASS" | "FAIL" | null>): StepRecord[] {
  const roles: Role[] = ["architect", "builder", "reviewer", "security"];
  return verdicts.map((v, index) => ({
    runId: "run1",
    index,
    role: roles[index] as Role,
    state: v === "PASS" ? "passed" : v === "FAIL" ? "failed" : "queued",
    attempt: 1,
    decision: v
      ? {
          role: roles[index] as Role,
          verdict: v,
          reasons: v === "FAIL" ? ["nope"] : [],
          overridden: false,
        }
      : null,
    output: null,
    startedAt: null,
    finishedAt: null,
  }));
}

const approval = (headSha: string, digest: string): RunEvent => ({
  seq: 1,
  runId: "run1",
  type: APPROVED_EVENT,
  data: { actor: "alice", headSha, verdictsDigest: digest },
  at: "",
});

describe("forge/gate (R9.4)", () => {
  const pass4 = steps(["PASS", "PASS", "PASS", "PASS"]);

  it("opens only when every role passed and nothing protected is touched", () => {
    expect(
      evaluateGate({
        run: run(),
        steps: pass4,
        events: [],
        headSha: HEAD,
        changedFiles: ["greet.sh"],
      }).conclusion,
    ).toBe("success");
  });

  it("a FAIL, a step not run, or a failed run closes it", () => {
    const failing = evaluateGate({
      run: run("failed"),
      steps: steps(["PASS", "PASS", "FAIL", null]),
      events: [],
      headSha: HEAD,
      changedFiles: [],
    });
    expect(failing.conclusion).toBe("failure");
    expect(failing.summary).toContain("reviewer: FAIL — nope");
    expect(failing.summary).toContain("security: not run");
  });

  it("unknown changed files close it (fail-closed)", () => {
    expect(
      evaluateGate({ run: run(), steps: pass4, events: [], headSha: HEAD, changedFiles: null })
        .conclusion,
    ).toBe("failure");
  });

  it("deployment and repository protected paths need an approval for exactly this head and verdicts", () => {
    const input = { run: run("passed", ["infra/**"]), steps: pass4, headSha: HEAD };
    for (const file of [
      ".github/workflows/ci.yml",
      "CODEOWNERS",
      "docs/codeowners",
      "infra/main.tf",
      "scripts/verify.sh",
    ]) {
      const g = evaluateGate({ ...input, events: [], changedFiles: ["greet.sh", file] });
      expect(g.conclusion, file).toBe("failure");
      expect(g.awaitingApproval).toBe(true);
      expect(g.protectedFiles).toEqual([file]);
    }
    const digest = runVerdictsDigest(pass4);
    const files = ["infra/main.tf"];
    expect(
      evaluateGate({ ...input, events: [approval("c".repeat(40), digest)], changedFiles: files })
        .conclusion,
    ).toBe("failure");
    expect(
      evaluateGate({ ...input, events: [approval(HEAD, "0".repeat(64))], changedFiles: files })
        .conclusion,
    ).toBe("failure");
    expect(
      evaluateGate({ ...input, events: [approval(HEAD, digest)], changedFiles: files }).conclusion,
    ).toBe("success");
  });

  it("an approval never opens a gate whose verdicts did not all pass", () => {
    const s = steps(["PASS", "PASS", "PASS", "FAIL"]);
    const g = evaluateGate({
      run: run("failed"),
      steps: s,
      events: [approval(HEAD, runVerdictsDigest(s))],
      headSha: HEAD,
      changedFiles: ["CODEOWNERS"],
    });
    expect(g.conclusion).toBe("failure");
  });
});
