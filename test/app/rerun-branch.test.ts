// Relabelling an issue whose earlier run finished: the new run updates the same branch and
// draft PR — unless a human pushed commits to it, then it pushes to a new suffixed branch and
// the comment says so. The push semantics (a lease on the head forgechain pushed) are the
// runner's; GitStepRunner does what finish-run.ts does with the App's `branchLease`.
import { afterEach, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/chain/types.js";
import { gitLine } from "../../src/runner/git.js";
import { gate } from "../chain/scripted-runner.js";
import { type AppKit, createAppKit } from "./app-kit.js";
import { issueLabeled } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

const BRANCH = "forge/7-greet-with-an-exclamation-mark";

async function labelAndFinish(k: AppKit): Promise<RunRecord> {
  await k.receive("issues", issueLabeled({ sender: "alice" }));
  await k.settle();
  const runs = await k.store.listRuns();
  const run = runs.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0];
  if (!run) throw new Error("no run");
  return run;
}

async function finishedHead(k: AppKit, run: RunRecord): Promise<string> {
  const e = (await k.store.events(run.id)).find((x) => x.type === "run.finished");
  return String(e?.data.headSha);
}

const remoteHead = (k: AppKit, branch: string) =>
  gitLine(["rev-parse", `refs/heads/${branch}`], { cwd: k.bare });

function stickyOf(k: AppKit, runId: string): string {
  return (
    k.state.commentsOn(7).find((c) => c.body.startsWith(`<!-- forgechain:run:${runId} -->`))
      ?.body ?? ""
  );
}

describe("a second run on the same issue", () => {
  it("updates the same branch and the same draft PR", async () => {
    kit = await createAppKit();
    const first = await labelAndFinish(kit);
    expect(first.state).toBe("passed");
    expect(first.branch).toBe(BRANCH);
    expect(await remoteHead(kit, BRANCH)).toBe(await finishedHead(kit, first));

    const second = await labelAndFinish(kit);
    expect(second.id).not.toBe(first.id);
    expect(second.state).toBe("passed");
    expect(second.branch).toBe(BRANCH);
    // Not a fast-forward (the new work sits on the current base), replaced under a lease.
    expect(await remoteHead(kit, BRANCH)).toBe(await finishedHead(kit, second));

    expect(kit.state.pulls).toHaveLength(1);
    expect(kit.state.pulls[0]?.body).toContain(second.id);
    expect(stickyOf(kit, second.id)).toContain(`updates \`${BRANCH}\``);
    expect(stickyOf(kit, second.id)).toContain(first.id);
  });

  it("never overwrites a human's commits: a new suffixed branch, said in the comment", async () => {
    kit = await createAppKit();
    const first = await labelAndFinish(kit);
    const human = await kit.pushBranch(BRANCH, { "NOTES.md": "a human's fix\n" });

    const second = await labelAndFinish(kit);
    expect(second.state).toBe("passed");
    expect(second.branch).toBe(`${BRANCH}-2`);
    expect(await remoteHead(kit, BRANCH)).toBe(human);
    expect(await remoteHead(kit, `${BRANCH}-2`)).toBe(await finishedHead(kit, second));
    expect(kit.state.pulls.map((p) => p.head)).toEqual([BRANCH, `${BRANCH}-2`]);
    const sticky = stickyOf(kit, second.id);
    expect(sticky).toContain(`\`${BRANCH}\` has commits forgechain did not push`);
    expect(sticky).toContain(`\`${BRANCH}-2\``);
    expect(first.branch).toBe(BRANCH);

    // A third run continues on the suffixed branch forgechain owns.
    const third = await labelAndFinish(kit);
    expect(third.branch).toBe(`${BRANCH}-2`);
    expect(await remoteHead(kit, `${BRANCH}-2`)).toBe(await finishedHead(kit, third));
    expect(await remoteHead(kit, BRANCH)).toBe(human);
    expect(kit.state.pulls).toHaveLength(2);
  });

  it("a branch deleted after the first run is pushed again under its name", async () => {
    kit = await createAppKit();
    await labelAndFinish(kit);
    await gitLine(["update-ref", "-d", `refs/heads/${BRANCH}`], { cwd: kit.bare });
    const second = await labelAndFinish(kit);
    expect(second.state).toBe("passed");
    expect(second.branch).toBe(BRANCH);
    expect(await remoteHead(kit, BRANCH)).toBe(await finishedHead(kit, second));
  });

  it("a human push while the run works stops its push (the lease is the head seen at start)", async () => {
    kit = await createAppKit();
    await labelAndFinish(kit);
    const held = gate();
    kit.runner.scripted.on("reviewer", held.script);
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await held.started;
    const human = await kit.pushBranch(BRANCH, { "NOTES.md": "pushed while the run worked\n" });
    held.release();
    await kit.settle();
    const second = (await kit.store.listRuns()).find((r) => r.state !== "passed");
    expect(second?.state).toBe("failed");
    expect(await remoteHead(kit, BRANCH)).toBe(human);
    const finished = (await kit.store.events(second?.id ?? "")).find(
      (e) => e.type === "run.finished",
    );
    expect(String(finished?.data.reasons)).toContain("stale info");
    expect(stickyOf(kit, second?.id ?? "")).toContain("Why the run failed");
    expect(stickyOf(kit, second?.id ?? "")).toContain("the branch changed on GitHub");
  });
});
