// The engine judges a step from what the runner measured (src/chain/judge.ts): a runner that
// claims a verdict is not believed, and every rule holds whatever the runner says.
import { describe, expect, it } from "vitest";
import { judgeStepResult } from "../../src/chain/judge.js";
import type { Role } from "../../src/roles/role-names.js";
import { envelope, validOutput } from "../roles/output-schema-fixtures.js";
import { fake } from "../secrets/fake-secrets.js";
import { agentOutput } from "./scripted-runner.js";

const judge = (role: Role, result: unknown) => judgeStepResult(result, role, 1);
/** A runner's result with nothing measured against the agent. */
const measured = (agent: unknown, extra: Record<string, unknown> = {}) => ({
  agentOutput: agent,
  failures: [],
  events: [],
  ...extra,
});
const PASSED = "builder wrote PASS in schema-valid structured output";
const DISPOSITION_FAILED = "the worker reported disposition failed";

describe("a runner's own verdict is never read", () => {
  it("an output saying FAIL fails, whatever decision, verdict and feedback the runner adds", async () => {
    const j = await judge(
      "builder",
      measured(agentOutput("builder", "FAIL", "not done"), {
        decision: { role: "builder", verdict: "PASS", reasons: [], overridden: false },
        verdict: "PASS",
        feedback: {
          id: "builder-attempt-1",
          role: "builder",
          task: "builder",
          attempt: 1,
          disposition: "completed",
          summary: "all good",
          evidence: [],
        },
      }),
    );
    expect(j.kind).toBe("fail");
    if (j.kind !== "fail") return;
    expect(j.decision).toEqual({
      role: "builder",
      verdict: "FAIL",
      reasons: ["builder wrote verdict FAIL", DISPOSITION_FAILED],
      overridden: false,
    });
    expect(j.feedback).toMatchObject({ id: "builder-attempt-1", disposition: "failed" });
  });

  it("the recorded PASS of the real CLI passes, with the engine's own feedback", async () => {
    const raw = envelope("builder-pass");
    const j = await judge("builder", measured(raw));
    expect(j.kind).toBe("pass");
    if (j.kind !== "pass") return;
    expect(j.decision).toEqual({
      role: "builder",
      verdict: "PASS",
      reasons: [PASSED],
      overridden: false,
    });
    const summary = (raw.structured_output as { summary: string }).summary;
    expect(j.feedback).toEqual({
      id: "builder-attempt-1",
      role: "builder",
      task: "builder",
      attempt: 1,
      disposition: "completed",
      summary,
      evidence: [],
    });
    expect(j.output).toEqual(raw.structured_output);
  });
});

describe("what the runner measured", () => {
  it("a measured failure turns the agent's PASS into a FAIL, and says the engine overrode it", async () => {
    const j = await judge(
      "builder",
      measured(envelope("builder-pass"), { failures: ["verify failed: exit 1"] }),
    );
    expect(j.kind).toBe("fail");
    expect(j.kind === "fail" && j.decision).toEqual({
      role: "builder",
      verdict: "FAIL",
      reasons: ["verify failed: exit 1", PASSED, DISPOSITION_FAILED],
      overridden: true,
    });
  });

  it("a measured failure beside the agent's own FAIL overrides nothing", async () => {
    const j = await judge(
      "builder",
      measured(agentOutput("builder", "FAIL", "not done"), { failures: ["timed out"] }),
    );
    expect(j.kind === "fail" && j.decision.overridden).toBe(false);
    expect(j.kind === "fail" && j.decision.reasons[0]).toBe("timed out");
  });

  it("when no agent ran, the runner's reasons alone explain the FAIL", async () => {
    const j = await judge("reviewer", { failures: ["diff too large to review"], events: [] });
    expect(j.kind).toBe("fail");
    if (j.kind !== "fail") return;
    expect(j.decision.reasons).toEqual(["diff too large to review", DISPOSITION_FAILED]);
    expect(j.feedback).toMatchObject({ summary: "diff too large to review" });
    expect(j.output).toBeNull();
  });

  it("no agent and no reason is still a FAIL", async () => {
    const j = await judge("architect", { failures: [], events: [] });
    expect(j.kind).toBe("fail");
    expect(j.kind === "fail" && j.decision.reasons[0]).toMatch(/no agent and gave no reason/);
  });

  it("a secret in a runner's reason is redacted before it is journaled", async () => {
    const token = fake.githubToken();
    const j = await judge(
      "builder",
      measured(envelope("builder-pass"), { failures: [`verify printed ${token}`] }),
    );
    expect(JSON.stringify(j)).not.toContain(token);
    expect(j.kind === "fail" && j.decision.reasons[0]).toMatch(/REDACTED/);
  });
});

describe("the verdict rules on the agent's raw output", () => {
  it("output that does not match the role's schema fails, even saying PASS", async () => {
    const { plan: _plan, ...noPlan } = agentOutput("architect", "PASS", "planned");
    const j = await judge("architect", measured(noPlan));
    expect(j.kind).toBe("fail");
    expect(j.kind === "fail" && j.decision.reasons.join(" ")).toMatch(/structured output invalid/);
  });

  it("a summary under the schema's 200 characters fails", async () => {
    const j = await judge("architect", measured({ ...validOutput("architect"), summary: "ok" }));
    expect(j.kind).toBe("fail");
  });

  it("an envelope that reports an error fails, whatever its structured output says", async () => {
    const j = await judge("builder", measured({ ...envelope("builder-pass"), is_error: true }));
    expect(j.kind === "fail" && j.decision.reasons).toContain("the run errored (is_error: true)");
  });

  it("a secret in the diff fails security that said PASS, and the reason hides it", async () => {
    const token = fake.githubToken();
    const diff = `diff --git a/app.ts b/app.ts\n+++ b/app.ts\n+const token = "${token}";\n`;
    const j = await judge("security", measured(envelope("security-pass"), { diff }));
    expect(j.kind).toBe("fail");
    if (j.kind !== "fail") return;
    expect(j.decision.overridden).toBe(true);
    expect(j.decision.reasons.join("\n")).toMatch(/secret in the diff in app\.ts/);
    expect(JSON.stringify(j)).not.toContain(token);
  });

  it("the same security output with a clean diff passes", async () => {
    const j = await judge("security", measured(envelope("security-pass"), { diff: "" }));
    expect(j.kind).toBe("pass");
  });

  it("a security result without the diff fails: the secret rule could not run", async () => {
    const j = await judge("security", measured(envelope("security-pass")));
    expect(j.kind).toBe("fail");
    expect(j.kind === "fail" && j.decision.reasons[0]).toMatch(/no diff/);
  });

  it("a blocking finding fails a reviewer that said PASS", async () => {
    const out = validOutput("reviewer");
    const [first] = out.findings as Array<Record<string, unknown>>;
    const j = await judge(
      "reviewer",
      measured({ ...out, findings: [{ ...first, severity: "blocking" }] }, { diff: "" }),
    );
    expect(j.kind).toBe("fail");
    expect(j.kind === "fail" && j.decision.overridden).toBe(true);
  });

  it("a secret in the agent's output is redacted in the output the engine keeps", async () => {
    const token = fake.githubToken();
    const out = agentOutput("builder", "PASS", `printed ${token} once`);
    const j = await judge("builder", measured(out));
    expect(JSON.stringify(j)).not.toContain(token);
    expect(j.kind !== "question" && (j.output as { summary: string }).summary).toMatch(/REDACTED/);
  });
});

describe("questions", () => {
  const asking = agentOutput("architect", "FAIL", "a question", {
    request: { id: "req-1", kind: "clarification", question: "Who?", context: "Unclear." },
  });

  it("a request with nothing measured against it is a question", async () => {
    const j = await judge("architect", measured(asking));
    expect(j.kind).toBe("question");
    expect(j.kind === "question" && j.feedback).toMatchObject({
      disposition: "clarification",
      request: { id: "req-1", question: "Who?" },
    });
  });

  it("a request beside a measured failure is a FAIL, not a question", async () => {
    const j = await judge("architect", measured(asking, { failures: ["the agent timed out"] }));
    expect(j.kind).toBe("fail");
  });
});

describe("a malformed result fails closed", () => {
  const pass = envelope("builder-pass");
  it.each<[string, unknown]>([
    ["null", null],
    ["a string", "PASS"],
    ["no failure list", { agentOutput: pass, events: [] }],
    ["failures that are not text", { agentOutput: pass, failures: [{}], events: [] }],
    ["a diff that is not text", { agentOutput: pass, failures: [], diff: 1, events: [] }],
    ["bare text as the agent's output", measured("PASS")],
    ["an agent output of null", measured(null)],
  ])("%s", async (_name, result) => {
    const j = await judge("builder", result);
    expect(j.kind).toBe("fail");
    expect(j.kind === "fail" && j.decision.verdict).toBe("FAIL");
  });
});
