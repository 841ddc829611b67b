// `forge serve`'s choice of where role steps run: the local boxes by default, Actions jobs with
// FORGE_RUNNER=actions; a wrong value stops the server, naming the variable and what it takes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  readServeSettings,
  SERVE_ENV,
  ServeConfigError,
  serveHelpText,
} from "../../src/app/serve-config.js";
import { REPO_ROOT } from "../harness/claude-run.js";

describe("FORGE_RUNNER", () => {
  it("runs steps here unless told otherwise", () => {
    expect(readServeSettings({}).actions).toBeUndefined();
    expect(readServeSettings({ FORGE_RUNNER: "local" }).actions).toBeUndefined();
  });

  it("actions: the workflow, the report timeout and GitHub's token issuer by default", () => {
    expect(readServeSettings({ FORGE_RUNNER: "actions" }).actions).toEqual({
      workflowPath: ".github/workflows/forgechain-steps.yml",
      reportTimeoutMs: 3600_000,
      issuer: "https://token.actions.githubusercontent.com",
    });
    // A GitHub Enterprise Server issues its own tokens.
    expect(
      readServeSettings({ FORGE_RUNNER: "actions", GHE_HOST: "ghe.example" }).actions?.issuer,
    ).toBe("https://ghe.example/_services/token");
    const set = readServeSettings({
      FORGE_RUNNER: "actions",
      FORGE_ACTIONS_WORKFLOW: ".github/workflows/agents.yaml",
      FORGE_ACTIONS_TIMEOUT_MS: "600000",
      FORGE_ACTIONS_OIDC_ISSUER: "http://127.0.0.1:8080/",
    }).actions;
    expect(set).toEqual({
      workflowPath: ".github/workflows/agents.yaml",
      reportTimeoutMs: 600_000,
      issuer: "http://127.0.0.1:8080",
    });
  });

  it.each([
    [{ FORGE_RUNNER: "kubernetes" }, /FORGE_RUNNER=kubernetes: local or actions/],
    [{ FORGE_RUNNER: "actions", FORGE_ACTIONS_WORKFLOW: "../x.yml" }, /FORGE_ACTIONS_WORKFLOW/],
    [{ FORGE_RUNNER: "actions", FORGE_ACTIONS_TIMEOUT_MS: "soon" }, /FORGE_ACTIONS_TIMEOUT_MS/],
    [{ FORGE_RUNNER: "actions", FORGE_ACTIONS_OIDC_ISSUER: "token" }, /FORGE_ACTIONS_OIDC_ISSUER/],
  ])("refuses %j", (env, message) => {
    expect(() => readServeSettings(env)).toThrow(ServeConfigError);
    expect(() => readServeSettings(env)).toThrow(message);
  });
});

describe("forge serve --help and .env.example", () => {
  it("name the same forgechain variables", () => {
    const example = readFileSync(join(REPO_ROOT, ".env.example"), "utf8");
    const ours = SERVE_ENV.find((g) => g.group === "forgechain")?.vars ?? [];
    expect(ours.length).toBeGreaterThan(10);
    for (const v of ours) expect(example, v.name).toMatch(new RegExp(`^#? ?${v.name}=`, "m"));
    expect(serveHelpText()).toContain("FORGE_RUNNER");
  });
});
