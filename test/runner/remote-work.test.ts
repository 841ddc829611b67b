// The builder's work between machines, with real repositories: a "job" pushes its work under the
// run's work ref, the "App" fetches it into a run directory of its own, checks it and diffs it
// itself; a later "job" reviews it as its run's head. Nothing shares a disk but the remote.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/chain/types.js";
import {
  ensureRunWork,
  fetchWork,
  handedState,
  isPushedWork,
  pushWork,
  takeHandedState,
  workDiff,
  workRefOf,
} from "../../src/runner/remote-work.js";
import { measureRun, openRunRepos, readRef, setRef, WORK_REF } from "../../src/runner/run-repos.js";
import { loadRunState, saveRunState } from "../../src/runner/run-state.js";
import { gitIn, makeRepo, tempDir } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

/** A remote with main, a run on it, and a commit on main's base made in a job's real.git. */
async function jobWithWork() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const src = join(t.dir, "src");
  makeRepo(src, { "README.md": "hi\n" });
  const remote = join(t.dir, "remote.git");
  gitIn(t.dir, "clone", "--quiet", "--bare", src, remote);
  const jobDir = join(t.dir, "job", "run-1");
  const repos = await openRunRepos(jobDir, remote);
  const base = await measureRun(repos, { runId: "run-1", baseRef: "main" });
  // The builder's re-applied work: one file changed on the real base.
  const work = commitOn(repos.real, base.baseSha, "greet.sh", "echo hello!\n");
  await setRef(repos.real, WORK_REF, work);
  const run = {
    id: "run-1",
    repo: { remote, baseRef: "main" },
    baseSha: base.baseSha,
    branch: "forge/1-x",
  } as unknown as RunRecord;
  return { t, remote, jobDir, run, work, base: base.baseSha, repos };
}

/** A commit of `parent`'s tree plus one file, made with git's plumbing in a bare repository. */
function commitOn(repo: string, parent: string, path: string, text: string): string {
  const env = { GIT_INDEX_FILE: join(repo, `index-${Date.now()}`) };
  const run = (...args: string[]) => gitInEnv(repo, env, ...args);
  run("read-tree", parent);
  const blob = gitInEnv(repo, env, "hash-object", "-w", "--stdin", `--path=${path}`, "-t", "blob");
  run("update-index", "--add", "--cacheinfo", `100644,${blob},${path}`);
  const tree = run("write-tree");
  return run("commit-tree", tree, "-p", parent, "-m", "work");
  function gitInEnv(cwd: string, e: Record<string, string>, ...args: string[]): string {
    return execFileSync("git", args, {
      cwd,
      env: {
        ...process.env,
        ...e,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.invalid",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.invalid",
      },
      input: args.includes("--stdin") ? text : undefined,
      encoding: "utf8",
    }).trim();
  }
}

describe("the builder's work as a ref of the repository", () => {
  it("a job pushes it, the App fetches it into its own repositories and diffs it itself", async () => {
    const { t, remote, jobDir, run, work } = await jobWithWork();
    const ref = workRefOf("run-1", 1, 1);
    expect(await pushWork(jobDir, ref, undefined)).toEqual({ ref, sha: work });
    expect(gitIn(remote, "rev-parse", ref)).toBe(work);

    const appDir = join(t.dir, "app", "run-1");
    await fetchWork(appDir, run, { ref, sha: work }, undefined);
    expect(await readRef(join(appDir, "git", "real.git"), WORK_REF)).toBe(work);
    const diff = await workDiff(appDir, run, { ref, sha: work }, undefined);
    expect(diff).toContain("+echo hello!");
  });

  it("refuses work whose ref holds another commit than the job reported", async () => {
    const { t, jobDir, run, base } = await jobWithWork();
    const ref = workRefOf("run-1", 1, 1);
    await pushWork(jobDir, ref, undefined);
    const appDir = join(t.dir, "app", "run-1");
    await expect(fetchWork(appDir, run, { ref, sha: base }, undefined)).rejects.toThrow(
      /not in the repository: .* is at [0-9a-f]{40}, the job reported/,
    );
    await expect(
      fetchWork(appDir, run, { ref: workRefOf("run-1", 1, 2), sha: base }, undefined),
    ).rejects.toThrow(/is missing/);
  });

  it("refuses work that does not stand on the run's base", async () => {
    const { t, jobDir, run, repos } = await jobWithWork();
    // A commit with no parent: whatever it holds, it is not a change of the run's base.
    const stray = gitIn(repos.real, "commit-tree", "-m", "stray", gitIn(repos.real, "write-tree"));
    await setRef(repos.real, WORK_REF, stray);
    const ref = workRefOf("run-1", 1, 1);
    await pushWork(jobDir, ref, undefined);
    await expect(
      fetchWork(join(t.dir, "app", "run-1"), run, { ref, sha: stray }, undefined),
    ).rejects.toThrow(/does not stand on the run's base/);
  });

  it("a later job reviews the fetched work as its run's head", async () => {
    const { t, jobDir, run, work } = await jobWithWork();
    const ref = workRefOf("run-1", 1, 1);
    await pushWork(jobDir, ref, undefined);
    const reviewDir = join(t.dir, "job2", "run-1");
    await fetchWork(reviewDir, run, { ref, sha: work }, undefined);
    const repos = await openRunRepos(reviewDir, run.repo.remote);
    const measured = await measureRun(repos, {
      runId: "run-1",
      baseRef: "main",
      headRef: work,
      knownBaseSha: run.baseSha,
    });
    expect(measured.workHead).toBe(work);
    expect(measured.agentHead).not.toBe(measured.agentBase);
    expect(gitIn(repos.agents, "show", `${measured.agentHead}:greet.sh`)).toBe("echo hello!");
  });

  it("a replica that never saw the run measures it again and finds the same work", async () => {
    const { t, jobDir, run, work } = await jobWithWork();
    const ref = workRefOf("run-1", 1, 1);
    await pushWork(jobDir, ref, undefined);
    const other = join(t.dir, "replica", "run-1");
    await ensureRunWork(other, run, { ref, sha: work }, undefined);
    expect(await readRef(join(other, "git", "real.git"), WORK_REF)).toBe(work);
  });

  it("names only work refs and commit ids as pushed work", () => {
    const sha = "a".repeat(40);
    expect(isPushedWork({ ref: workRefOf("r1", 1, 2), sha })).toBe(true);
    expect(isPushedWork({ ref: "refs/heads/main", sha })).toBe(false);
    expect(isPushedWork({ ref: "refs/forge/runs/../work-1-1", sha })).toBe(false);
    expect(isPushedWork({ ref: workRefOf("r1", 1, 2), sha: "HEAD" })).toBe(false);
    expect(isPushedWork(null)).toBe(false);
  });
});

describe("the runner's notes handed between machines", () => {
  it("hands on everything but the setup, and keeps the taker's own setup", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const from = join(t.dir, "from");
    const to = join(t.dir, "to");
    mkdirSync(from, { recursive: true });
    mkdirSync(to, { recursive: true });
    const setup = { dir: "/job/setup", results: [], commands: ["npm ci"] };
    await saveRunState(from, {
      controls: [],
      controlLines: ["lint ok"],
      notes: ["a note"],
      setup: setup as never,
    });
    await saveRunState(to, {
      controls: [],
      controlLines: [],
      notes: [],
      setup: { ...setup, dir: "/app/setup" } as never,
    });
    const handed = await handedState(from);
    expect(handed).not.toHaveProperty("setup");
    await takeHandedState(to, JSON.parse(JSON.stringify(handed)));
    const taken = await loadRunState(to);
    expect(taken.notes).toEqual(["a note"]);
    expect(taken.controlLines).toEqual(["lint ok"]);
    expect((taken.setup as unknown as { dir: string }).dir).toBe("/app/setup");
    // Junk is not taken.
    await takeHandedState(to, { notes: "not a list" });
    expect(JSON.parse(readFileSync(join(to, "state.json"), "utf8")).notes).toEqual(["a note"]);
  });
});
