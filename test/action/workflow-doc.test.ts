// The example workflow in docs/github-action.md is the one the Action's tests play: the events
// they send, the least permissions, the inputs they set — and action.yml declares exactly the
// inputs and outputs the docs and the code name.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT } from "../harness/claude-run.js";
import { runnerEnv } from "./action-kit.js";

interface Workflow {
  on: Record<string, { types?: string[]; inputs?: Record<string, { required?: boolean }> } | null>;
  permissions: Record<string, string>;
  concurrency: { group: string; "cancel-in-progress": boolean };
  jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
}

function docWorkflow(): Workflow {
  const doc = readFileSync(join(REPO_ROOT, "docs", "github-action.md"), "utf8");
  const block = /```yaml\n(# \.github\/workflows\/forgechain\.yml\n[\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/github-action.md has no forgechain.yml block");
  return parse(block) as Workflow;
}

const actionYml = parse(readFileSync(join(REPO_ROOT, "action", "action.yml"), "utf8")) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
};

describe("the example workflow", () => {
  const wf = docWorkflow();

  it("subscribes to the events the tests send, with the types forgechain acts on", () => {
    expect(wf.on).toEqual({
      issues: { types: ["labeled"] },
      issue_comment: { types: ["created"] },
      pull_request: { types: ["labeled", "opened", "synchronize"] },
      workflow_dispatch: { inputs: { issue: expect.objectContaining({ required: true }) } },
    });
  });

  it("asks for the least permissions and queues runs per issue or pull request", () => {
    expect(wf.permissions).toEqual({
      contents: "write",
      issues: "write",
      "pull-requests": "write",
      checks: "write",
    });
    for (const part of ["issue.number", "pull_request.number", "inputs.issue"])
      expect(wf.concurrency.group).toContain(part);
    expect(wf.concurrency["cancel-in-progress"]).toBe(false);
  });

  it("sets the inputs the tests' runner sets, each one the action declares", () => {
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const step = steps.find((s) => s.uses?.includes("forgechain/action"));
    const given = Object.keys(step?.with ?? {});
    for (const name of given) expect(Object.keys(actionYml.inputs)).toContain(name);
    const env = runnerEnv({
      host: "127.0.0.1:1",
      root: REPO_ROOT,
      temp: "/tmp/x",
      eventName: "issues",
      event: "/tmp/x/event.json",
      runId: "1",
      token: "t",
      modelUrl: "http://127.0.0.1:2",
      output: "/tmp/x/output",
    });
    for (const name of given) expect(env, name).toHaveProperty(`INPUT_${name.toUpperCase()}`);
    // No checkout step: forgechain clones for itself and never boxes the workflow's checkout.
    expect(steps.some((s) => s.uses?.startsWith("actions/checkout"))).toBe(false);
  });
});

describe("action.yml", () => {
  it("declares exactly the inputs and outputs the docs describe", () => {
    expect(Object.keys(actionYml.inputs).sort()).toEqual(
      [
        "anthropic_api_key",
        "claude_code_oauth_token",
        "claude_version",
        "forge_url",
        "gate_secret",
        "github_token",
        "review_label",
        "trigger_label",
      ].sort(),
    );
    expect(Object.keys(actionYml.outputs).sort()).toEqual(
      ["branch", "gate", "pull_request", "run_id", "verdict"].sort(),
    );
    expect(actionYml.runs).toEqual({ using: "node24", main: "dist/index.js" });
    // Each input has its row in the docs' table.
    const doc = readFileSync(join(REPO_ROOT, "docs", "github-action.md"), "utf8");
    for (const name of Object.keys(actionYml.inputs)) expect(doc).toContain(`| \`${name}\``);
  });
});
