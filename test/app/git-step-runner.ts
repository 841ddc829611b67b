/**
 * The layer below the engine for the handler tests: verdicts come from a ScriptedRunner
 * (test/chain), but the git side is real — a clone of the run's remote, a builder commit
 * touching `touches`, the run output committed and the branch pushed to the bare "GitHub"
 * repository, every commit also kept where the real runner keeps its own repository
 * (FORGE_HOME/work/<run>/git/real.git) — so the gate reads a real diff. The real local runner
 * with the real claude CLI is in test/e2e/app-*.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RunArtifacts, StepInput, StepResult, StepRunner } from "../../src/chain/ports.js";
import type { RunRecord, StepRecord } from "../../src/chain/types.js";
import { git, gitLine } from "../../src/runner/git.js";
import { branchName } from "../../src/runner/workspace.js";
import { ScriptedRunner } from "../chain/scripted-runner.js";

export class GitStepRunner implements StepRunner {
  readonly scripted = new ScriptedRunner();
  touches: string[] = ["greet.sh"];
  readonly remoteAuthSeen: Array<Record<string, string>> = [];
  /**
   * What the real runner's push is given (finish-run.ts): the `<expect>` of
   * `--force-with-lease=refs/heads/<branch>:<expect>` — the head the branch must still be at
   * ("" = it must not exist) — or undefined for a plain push (a fast-forward or a new branch).
   */
  branchLease: ((run: RunRecord) => string | undefined | Promise<string | undefined>) | null = null;

  constructor(private readonly forgeHome: string) {}

  private dir(run: RunRecord): string {
    return join(this.forgeHome, "work", run.id, "repo");
  }

  /** The commits of the clone, in the real runner's own repository (changed-files.ts reads it). */
  private async keep(run: RunRecord): Promise<void> {
    const dir = this.dir(run);
    const real = join(this.forgeHome, "work", run.id, "git", "real.git");
    if (!existsSync(join(real, "HEAD"))) {
      await mkdir(dirname(real), { recursive: true });
      await git(["clone", "--quiet", "--bare", "--", run.repo.remote, real], {
        cwd: dirname(real),
      });
    }
    await git(["push", "--quiet", "--force", real, "HEAD:refs/forge/work"], { cwd: dir });
  }

  async runStep(input: StepInput): Promise<StepResult> {
    const { run } = input;
    const dir = this.dir(run);
    // The real runner's name when the run carries none (local-runner.ts, branchOf).
    const branch = run.branch ?? branchName(run.task.title, run.task.number, run.id);
    if (!existsSync(join(dir, ".git"))) {
      await mkdir(dirname(dir), { recursive: true });
      await git(["clone", "--quiet", "--", run.repo.remote, dir], { cwd: dirname(dir) });
      await git(
        ["checkout", "--quiet", "-B", branch, run.repo.headRef ?? `origin/${run.repo.baseRef}`],
        { cwd: dir },
      );
    }
    const baseSha =
      run.baseSha ??
      (await gitLine(["merge-base", `origin/${run.repo.baseRef}`, "HEAD"], { cwd: dir }));
    if (input.role === "builder") {
      for (const file of this.touches) {
        await mkdir(dirname(join(dir, file)), { recursive: true });
        await writeFile(join(dir, file), `changed by run ${run.id} attempt ${input.attempt}\n`);
      }
      await git(["add", "-A"], { cwd: dir });
      await git(["commit", "--quiet", "-m", "builder"], { cwd: dir, allowFailure: true });
    }
    await this.keep(run);
    const result = await this.scripted.runStep(input);
    return { ...result, runPatch: { baseSha, branch } };
  }

  async finishRun(run: RunRecord, steps: StepRecord[]): Promise<RunArtifacts> {
    await this.scripted.finishRun(run, steps);
    const dir = this.dir(run);
    if (!existsSync(join(dir, ".git")) || !run.branch) {
      return { runOutputPath: null, branch: null, headSha: null, events: [] };
    }
    const path = `.forge/run-output-${run.id}.md`;
    if (run.chain === "review") {
      const head = await gitLine(["rev-parse", "HEAD"], { cwd: dir });
      return {
        runOutputPath: path,
        branch: run.branch,
        headSha: head,
        events: [{ type: "run.output", data: { pushed: false } }],
      };
    }
    await mkdir(join(dir, ".forge"), { recursive: true });
    await writeFile(join(dir, path), `# run ${run.id}\n`);
    await git(["add", "--force", "--", path], { cwd: dir });
    await git(["commit", "--quiet", "-m", "run output"], { cwd: dir });
    await this.keep(run);
    const head = await gitLine(["rev-parse", "HEAD"], { cwd: dir });
    const lease = await this.branchLease?.(run);
    await git(
      [
        "push",
        "--quiet",
        ...(lease === undefined ? [] : [`--force-with-lease=refs/heads/${run.branch}:${lease}`]),
        "origin",
        `HEAD:refs/heads/${run.branch}`,
      ],
      { cwd: dir },
    );
    return {
      runOutputPath: path,
      branch: run.branch,
      headSha: head,
      events: [{ type: "run.output", data: { path, pushed: true, branch: run.branch, head } }],
    };
  }
}
