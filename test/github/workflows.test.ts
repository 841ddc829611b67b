import { describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/errors.js";
import { OWNER, REPO, useFakeGitHub } from "./github-fakes.js";

const setup = useFakeGitHub();
const dispatches = `/repos/${OWNER}/${REPO}/actions/workflows/forgechain.yml/dispatches`;
const input = {
  owner: OWNER,
  repo: REPO,
  workflowPath: ".github/workflows/forgechain.yml",
  ref: "main",
  inputs: { forge_run: "run-1", forge_step: "0", forge_attempt: "1" },
};

describe("dispatchWorkflow", () => {
  it("starts the workflow by its file name on the ref, with the step's inputs", async () => {
    const { gh, port } = setup();
    gh.on("POST", dispatches, { status: 204 });
    await port.dispatchWorkflow(input);
    expect(gh.requests[0]?.body).toEqual({ ref: "main", inputs: input.inputs });
  });

  it("is sent once: a server error is not retried (a second job for the same step), it is thrown", async () => {
    const { gh, port } = setup();
    gh.on("POST", dispatches, { status: 502, body: { message: "Bad Gateway" } });
    await expect(port.dispatchWorkflow(input)).rejects.toBeInstanceOf(GitHubError);
    expect(gh.requests).toHaveLength(1);
  });
});

describe("cancelWorkflowRun", () => {
  const cancel = `/repos/${OWNER}/${REPO}/actions/runs/777/cancel`;
  const run = { owner: OWNER, repo: REPO, workflowRunId: 777 };

  it("cancels the workflow run; one that already ended (409) is no error", async () => {
    const { gh, port } = setup();
    gh.on("POST", cancel, { status: 202, body: {} });
    await port.cancelWorkflowRun(run);
    gh.on("POST", cancel, {
      status: 409,
      body: { message: "Cannot cancel a workflow run that is completed." },
    });
    await port.cancelWorkflowRun(run);
    expect(gh.requests.map((r) => r.pathname)).toEqual([cancel, cancel]);
  });

  it("throws anything else, typed", async () => {
    const { gh, port } = setup();
    gh.on("POST", cancel, {
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    await expect(port.cancelWorkflowRun(run)).rejects.toBeInstanceOf(GitHubError);
  });
});
