// The action's inputs and runner environment (action.yml's names; INPUT_<NAME> as the Actions
// runner sets them): defaults, refusals naming the input and the fix, no secret in a message.
import { describe, expect, it } from "vitest";
import {
  ActionInputError,
  inputName,
  readInputs,
  readRuntime,
  workflowSecrets,
} from "../../src/action/inputs.js";

const TOKEN = "ghs_forge_test_not_a_real_token_000000000";
const SECRET = "forge-test-gate-secret-0123456789abcdef0123";

function runtimeEnv(over: Record<string, string> = {}) {
  return {
    GITHUB_EVENT_NAME: "issues",
    GITHUB_EVENT_PATH: "/tmp/event.json",
    GITHUB_REPOSITORY: "octo/demo",
    GITHUB_API_URL: "https://api.github.com",
    GITHUB_GRAPHQL_URL: "https://api.github.com/graphql",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_WORKSPACE: "/home/runner/work/demo/demo",
    RUNNER_TEMP: "/home/runner/work/_temp",
    GITHUB_ACTOR: "octocat",
    GITHUB_RUN_ID: "42",
    ...over,
  };
}

describe("readInputs", () => {
  it("takes INPUT_<NAME> as the runner sets it, with action.yml's defaults", () => {
    expect(inputName("github_token")).toBe("INPUT_GITHUB_TOKEN");
    expect(readInputs({ INPUT_GITHUB_TOKEN: TOKEN }, "2.1.332")).toEqual({
      githubToken: TOKEN,
      triggerLabel: "forge",
      reviewLabel: "forge:review",
      claudeVersion: "2.1.332",
    });
    const all = readInputs(
      {
        INPUT_GITHUB_TOKEN: TOKEN,
        INPUT_ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
        INPUT_TRIGGER_LABEL: "agent",
        INPUT_REVIEW_LABEL: "agent: review",
        INPUT_GATE_SECRET: SECRET,
        INPUT_CLAUDE_VERSION: "2.1.400",
      },
      "2.1.332",
    );
    expect(all).toMatchObject({
      anthropicApiKey: "sk-ant-forge-test-not-a-real-key",
      triggerLabel: "agent",
      reviewLabel: "agent: review",
      gateSecret: SECRET,
      claudeVersion: "2.1.400",
    });
  });

  it.each([
    [{}, /github_token is empty/],
    [{ INPUT_TRIGGER_LABEL: "a,b" }, /trigger_label "a,b" is not a label name/],
    [{ INPUT_CLAUDE_VERSION: "latest" }, /claude_version "latest" is not a version/],
    [{ INPUT_GATE_SECRET: "short-secret" }, /gate_secret is shorter than 32 characters/],
    [
      { INPUT_FORGE_URL: "ftp://forge.example" },
      /forge_url "ftp:\/\/forge.example" is not the App's URL/,
    ],
  ])("refuses %j, naming the input", (over, message) => {
    const env = { INPUT_GITHUB_TOKEN: TOKEN, ...over } as Record<string, string>;
    if (!("INPUT_GITHUB_TOKEN" in over) && Object.keys(over).length === 0)
      delete env.INPUT_GITHUB_TOKEN;
    const call = () => readInputs(env, "2.1.332");
    expect(call).toThrow(ActionInputError);
    expect(call).toThrow(message);
    try {
      call();
    } catch (error) {
      expect(String(error)).not.toContain("short-secret");
      expect(String(error)).not.toContain(TOKEN);
    }
  });
});

describe("readRuntime", () => {
  it("reads the runner's variables; GHES hosts come from them, never hard-coded", () => {
    const r = readRuntime(
      runtimeEnv({
        GITHUB_API_URL: "https://ghe.example.com/api/v3/",
        GITHUB_SERVER_URL: "https://ghe.example.com",
        GITHUB_OUTPUT: "/home/runner/work/_temp/out",
      }),
    );
    expect(r).toMatchObject({
      repository: "octo/demo",
      apiUrl: "https://ghe.example.com/api/v3",
      serverUrl: "https://ghe.example.com",
      outputFile: "/home/runner/work/_temp/out",
      runAttempt: "1",
    });
  });

  it.each([
    [{ GITHUB_EVENT_NAME: "" }, /GITHUB_EVENT_NAME is not set/],
    [{ GITHUB_REPOSITORY: "octo" }, /is not owner\/name/],
    [{ GITHUB_API_URL: "ftp://x" }, /is not an http\(s\) URL/],
    [{ RUNNER_TEMP: "tmp" }, /is not an absolute path/],
  ])("refuses %j", (over, message) => {
    expect(() => readRuntime(runtimeEnv(over))).toThrow(message);
  });
});

describe("workflowSecrets", () => {
  it("the runner's tokens and the secret inputs, not the labels or the version", () => {
    const values = workflowSecrets({
      INPUT_GITHUB_TOKEN: TOKEN,
      INPUT_GATE_SECRET: SECRET,
      INPUT_TRIGGER_LABEL: "forge-label",
      INPUT_CLAUDE_VERSION: "2.1.332",
      ACTIONS_RUNTIME_TOKEN: "forge-test-runtime-token",
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: "forge-test-oidc-request",
      PATH: "/usr/bin:/bin",
    });
    expect(values.sort()).toEqual(
      [TOKEN, SECRET, "forge-test-runtime-token", "forge-test-oidc-request"].sort(),
    );
  });
});
