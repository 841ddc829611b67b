// The Action's step mode at its edges: which dispatch is the App's, and the clear errors of a
// workflow that cannot run a step (no App URL, no identity token). The whole job runs in
// test/e2e/actions-steps.test.ts.
import { describe, expect, it } from "vitest";
import { ActionInputError, type ActionRuntime } from "../../src/action/inputs.js";
import { runStepJob, stepDispatchOf } from "../../src/action/step-job.js";

const RUNTIME = { runnerTemp: "/tmp", repository: "octo/demo" } as ActionRuntime;
const INPUTS = { githubToken: "ghs_forge_test_not_a_real_token", triggerLabel: "forge" } as never;

describe("stepDispatchOf", () => {
  it("reads the App's run, step and attempt from a workflow_dispatch's inputs", () => {
    const inputs = { forge_run: "abc123", forge_step: "2", forge_attempt: "1" };
    expect(stepDispatchOf("workflow_dispatch", { inputs })).toEqual({
      runId: "abc123",
      index: 2,
      attempt: 1,
    });
  });

  it("is no step job for other events, or a dispatch without forge_run (an issue number)", () => {
    const inputs = { forge_run: "abc123", forge_step: "2", forge_attempt: "1" };
    expect(stepDispatchOf("issues", { inputs })).toBeNull();
    expect(stepDispatchOf("workflow_dispatch", { inputs: { issue: "7" } })).toBeNull();
    expect(stepDispatchOf("workflow_dispatch", {})).toBeNull();
  });

  it.each([
    [{ forge_run: "../x", forge_step: "1", forge_attempt: "1" }],
    [{ forge_run: "abc", forge_step: "one", forge_attempt: "1" }],
    [{ forge_run: "abc", forge_step: "1" }],
  ])("refuses malformed step inputs %j with what they must be", (inputs) => {
    expect(() => stepDispatchOf("workflow_dispatch", { inputs })).toThrow(ActionInputError);
    expect(() => stepDispatchOf("workflow_dispatch", { inputs })).toThrow(/forge_run/);
  });
});

describe("runStepJob", () => {
  const dispatch = { runId: "abc123", index: 0, attempt: 1 };
  const deps = (env: Record<string, string>) => ({ env, installRoot: "/nowhere", out: () => {} });

  it("needs the App's URL", async () => {
    await expect(runStepJob(deps({}), INPUTS, RUNTIME, dispatch, null)).rejects.toThrow(
      /forge_url is empty/,
    );
  });

  it("needs an identity token, and says which permission gives one", async () => {
    const inputs = { ...(INPUTS as object), forgeUrl: "http://127.0.0.1:9" } as never;
    await expect(runStepJob(deps({}), inputs, RUNTIME, dispatch, null)).rejects.toThrow(
      /permissions: id-token: write/,
    );
  });
});
