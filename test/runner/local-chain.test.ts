import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { buildSnapshotContent } from "../../src/runner/snapshot-content.js";
import { gitIn } from "../helpers/git-repo.js";
import { chainFixture, root, startChain, useModelServer } from "./chain-helpers.js";

const server = useModelServer(demoScript());

describe("a full change chain on the real claude binary in bwrap boxes", () => {
  it("passes, leaves a commit and the run output on the pushed branch, four verdicts in the journal", async () => {
    const f = await chainFixture({ server });
    try {
      const run = await startChain(f);
      const final = await f.stack.engine.drive(run.id);
      const status = await f.stack.engine.status(run.id);
      const why = JSON.stringify(status.steps.map((x) => x.decision?.reasons));
      expect(final.state, why).toBe("passed");
      expect(status.steps.map((s) => [s.role, s.state, s.decision?.verdict])).toEqual([
        ["architect", "passed", "PASS"],
        ["builder", "passed", "PASS"],
        ["reviewer", "passed", "PASS"],
        ["security", "passed", "PASS"],
      ]);
      const branch = final.branch ?? "";
      expect(branch).toMatch(/^forge\/local-[0-9a-f]{8}-add-the-exclamation-mark$/);
      // The branch was pushed back to the repository (the "remote"), not to its main.
      const files = gitIn(f.repo, "ls-tree", "-r", "--name-only", branch);
      expect(files).toContain(`.forge/run-output-${run.id}.md`);
      expect(gitIn(f.repo, "show", `${branch}:greet.sh`)).toContain('world}!"');
      expect(gitIn(f.repo, "show", "main:greet.sh")).not.toContain("world}!");
      const output = gitIn(f.repo, "show", `${branch}:.forge/run-output-${run.id}.md`);
      expect(output).toContain("| 2 | builder | PASS |");
      expect(output).toContain("**Claim.**");
      // The guard refused the smuggled .env read inside the builder's box.
      const refused = server.toolResults.find((r) => r.input?.command === "cat .env.example .env");
      expect(refused?.isError).toBe(true);
      expect(refused?.content).toMatch(/forge guard/);
      // No token reached any agent: the model never saw them in any request.
      const seen = JSON.stringify(server.requests.map((r) => r.body));
      expect(seen).not.toContain("ghs_forge_test_not_a_real_token");
      expect(seen).not.toContain("forge-test-not-a-real-pat");
      const events = await f.stack.store.events(run.id);
      expect(events.filter((e) => e.type === "step.finished")).toHaveLength(4);
      expect(events.some((e) => e.type === "controls.finished" && e.data.passed === true)).toBe(
        true,
      );
      const runOutput = readFileSync(`${f.forgeHome}/work/${run.id}/run-output.md`, "utf8");
      expect(runOutput).toContain(`# forgechain run ${run.id}`);
    } finally {
      await f.cleanup();
    }
  });
});

describe("a review chain in the local runner", () => {
  it("finishes on the head under review (the App's gate is set on that commit), not the base", async () => {
    const f = await chainFixture({ server });
    try {
      gitIn(f.repo, "checkout", "-q", "-b", "feature");
      writeFileSync(join(f.repo, "NOTES.md"), "A note for the review.\n");
      gitIn(f.repo, "add", "-A");
      gitIn(f.repo, "commit", "-qm", "a note");
      const head = gitIn(f.repo, "rev-parse", "HEAD").trim();
      gitIn(f.repo, "checkout", "-q", "main");
      server.setScript(demoScript());
      server.reset();
      const run = await f.stack.engine.startRun({
        chain: "review",
        task: { title: "Review the note", body: "Is the note fine?" },
        repo: { remote: f.repo, baseRef: "main", headRef: head },
        snapshotContent: await buildSnapshotContent({
          installRoot: root,
          remote: f.repo,
          ref: "main",
          provider: { name: "claude", version: "test" },
          config: f.policy.config,
        }),
        requestBudget: 1,
      });
      const final = await f.stack.engine.drive(run.id);
      expect(final.state).toBe("passed");
      const finished = (await f.stack.store.events(run.id)).find((e) => e.type === "run.finished");
      expect(finished?.data.headSha).toBe(head);
    } finally {
      await f.cleanup();
    }
  }, 120_000);
});
