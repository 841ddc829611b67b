// A step after a passed builder needs the builder's work from this runner's own repositories: a
// runner that lacks it (a replica without the shared FORGE_HOME took the run over) refuses the
// step instead of reviewing the bare base.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PriorOutput } from "../../src/chain/ports.js";
import { missingBuilderWork } from "../../src/runner/run-git.js";
import { measureRun, openRunRepos, setRef, WORK_REF } from "../../src/runner/run-repos.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const passed = (role: PriorOutput["role"]): PriorOutput => ({
  role,
  decision: { role, verdict: "PASS", reasons: [], overridden: false },
  output: null,
});

async function freshRepos() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const remote = join(t.dir, "remote");
  makeRepo(remote, { "README.md": "hi\n" });
  const repos = await openRunRepos(join(t.dir, "run"), remote);
  const base = await measureRun(repos, { runId: "run-1", baseRef: "main" });
  return { repos, base };
}

describe("missingBuilderWork", () => {
  it("refuses a step after a passed builder when the builder's work is not here", async () => {
    const { repos } = await freshRepos();
    const why = await missingBuilderWork(
      { repos },
      { chain: "change", prior: [passed("architect"), passed("builder")] },
    );
    expect(why).toMatch(/builder's work is not in this server's FORGE_HOME/);
  });

  it("lets it run once the builder's work is in the run's repository", async () => {
    const { repos, base } = await freshRepos();
    await setRef(repos.real, WORK_REF, base.baseSha);
    const prior = [passed("architect"), passed("builder")];
    expect(await missingBuilderWork({ repos }, { chain: "change", prior })).toBeNull();
  });

  it("asks nothing before the builder passed, nor of a review chain", async () => {
    const { repos } = await freshRepos();
    expect(
      await missingBuilderWork({ repos }, { chain: "change", prior: [passed("architect")] }),
    ).toBeNull();
    expect(
      await missingBuilderWork({ repos }, { chain: "review", prior: [passed("reviewer")] }),
    ).toBeNull();
  });
});
