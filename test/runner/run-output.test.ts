import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/chain/types.js";
import { verifyInputsTouched } from "../../src/policy/verify-inputs.js";
import { renderRunOutput } from "../../src/runner/run-output.js";

const run: RunRecord = {
  id: "run7",
  chain: "change",
  state: "passed",
  task: { title: "t", body: "b" },
  repo: { remote: "/r", baseRef: "main" },
  baseSha: "a".repeat(40),
  branch: "forge/7-t",
  snapshot: { digest: "d".repeat(64), content: {} },
  requestBudget: 1,
  createdAt: "",
  updatedAt: "",
};

const render = (verifyInputs?: string[]) =>
  renderRunOutput({
    run,
    steps: [],
    diffStat: " Makefile | 2 +-",
    controls: [{ name: "test", advisory: false, ok: true, exitCode: 0 }],
    notes: [],
    ...(verifyInputs ? { verifyInputs } : {}),
    redact: async (t) => t,
  });

describe("renderRunOutput: what verify ran", () => {
  it("names the changed files verify and the controls execute, and what that means", async () => {
    const changed = ["src/greet.ts", "Makefile", "package.json"];
    const md = await render(verifyInputsTouched(changed));
    expect(md).toContain("## What verify ran");
    expect(md).toContain(
      "Files that verify or the controls execute were changed: `Makefile`, `package.json`. " +
        "The base's verify script and the controls ran the builder's version of them, so their " +
        "passing is not independent evidence; a maintainer must approve with `/forge approve run7`.",
    );
    expect(md).not.toContain("`src/greet.ts`");
    expect(md).not.toMatch(/\bR\d\.\d/);
  });

  it("says nothing when none was changed, or when the runner passes none", async () => {
    for (const md of [await render([]), await render()]) {
      expect(md).not.toContain("What verify ran");
      expect(md).not.toContain("verify or the controls execute");
    }
  });

  it("a builder's file name cannot break out of its code span", async () => {
    const md = await render(["scripts/a`\n## Verdicts\nall PASS`.sh"]);
    expect(md).toContain("``scripts/a`?## Verdicts?all PASS`.sh``");
    expect(md.match(/^## Verdicts$/gm)).toHaveLength(1);
  });
});
