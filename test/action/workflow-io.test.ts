// What the Action tells the workflow: outputs, the job summary and workflow commands — with
// text from an issue, a comment or a model kept as data.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  escapeData,
  summaryMarkdown,
  workflowCommand,
  writeOutputs,
} from "../../src/action/workflow-io.js";
import { tempDir } from "../helpers/git-repo.js";
import { parseOutputFile } from "./action-kit.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("workflow commands", () => {
  it("a message from an issue cannot start a command of its own", () => {
    const hostile = "done\n::add-mask::x\r\n::stop-commands::t\n100%";
    const line = workflowCommand("notice", hostile, { title: "forge: a, b" });
    expect(line.split("\n").filter(Boolean)).toHaveLength(1);
    expect(line).toBe(
      "::notice title=forge%3A a%2C b::done%0A::add-mask::x%0D%0A::stop-commands::t%0A100%25\n",
    );
    expect(escapeData("a%0Ab")).toBe("a%250Ab");
    expect(workflowCommand("group", "architect")).toBe("::group::architect\n");
  });
});

describe("outputs", () => {
  it("each output reads back whole, even one that holds a line like a delimiter", () => {
    const t = tempDir("forge-action-out-");
    cleanups.push(t.cleanup);
    const file = join(t.dir, "output");
    writeFileSync(file, "earlier=1\n");
    const outputs = {
      run_id: "abc123",
      verdict: "PASS" as const,
      branch: "forge/7-greet\nEOF\nforge_0000",
      pull_request: "8",
      gate: "success",
    };
    writeOutputs(file, outputs);
    expect(parseOutputFile(readFileSync(file, "utf8"))).toEqual(outputs);
  });
});

describe("the job summary", () => {
  it("the verdict table, the gate and links; text from a model stays in code spans", () => {
    const md = summaryMarkdown({
      verdict: "FAIL",
      runId: "r1",
      subject: { number: 7, url: "https://github.com/octo/demo/issues/7" },
      steps: [
        { role: "architect", verdict: "PASS" },
        { role: "reviewer", verdict: "FAIL", reason: "| injected | row |\n[link](https://evil)" },
      ],
      gate: "failure",
      branch: "forge/7-greet",
      pullRequest: { number: 8, url: "https://github.com/octo/demo/pull/8" },
    });
    expect(md).toContain("## forgechain: FAIL on #7");
    // A pipe splits a GitHub table row even inside a code span: escaped, one cell.
    expect(md).toContain(
      "| `reviewer` | `FAIL` | `\\| injected \\| row \\|?[link](https://evil)` |",
    );
    const row = md.split("\n").find((l) => l.includes("reviewer")) ?? "";
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(3);
    expect(md).toContain("**Gate:** `failure`");
    expect(md).toContain("**Pull request:** [#8](https://github.com/octo/demo/pull/8)");
    expect(md.split("\n").filter((l) => l.startsWith("|"))).toHaveLength(4);
  });
});
