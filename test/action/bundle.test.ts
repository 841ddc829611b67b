// The packaged Action's committed files: action.yml names exactly the inputs and outputs
// forgechain reads and writes, and action/dist/index.js is what the build makes from its source.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionBootstrap } from "../../scripts/action-bootstrap.mjs";
import { REPO_ROOT } from "../harness/claude-run.js";

describe("the packaged Action", () => {
  it("action/dist/index.js is what the build makes (npm run build:action, then commit it)", async () => {
    const built = await build({ ...actionBootstrap, absWorkingDir: REPO_ROOT, write: false });
    const made = built.outputFiles?.[0]?.text ?? "";
    expect(made.length).toBeGreaterThan(100);
    expect(readFileSync(join(REPO_ROOT, "action", "dist", "index.js"), "utf8")).toBe(made);
  });

  it("action.yml: a node24 action on that bundle, with the inputs and outputs the code uses", () => {
    const yml = parse(readFileSync(join(REPO_ROOT, "action", "action.yml"), "utf8")) as {
      runs: { using: string; main: string };
      inputs: Record<string, { default?: string }>;
      outputs: Record<string, unknown>;
    };
    expect(yml.runs).toEqual({ using: "node24", main: "dist/index.js" });
    expect(Object.keys(yml.inputs).sort()).toEqual(
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
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
    expect(yml.inputs.github_token?.default).toBe("${{ github.token }}");
    expect(yml.inputs.trigger_label?.default).toBe("forge");
    expect(yml.inputs.review_label?.default).toBe("forge:review");
    expect(Object.keys(yml.outputs).sort()).toEqual(
      ["branch", "gate", "pull_request", "run_id", "verdict"].sort(),
    );
  });
});
