// The end of a run: the run output (R9.3) written into the workspace and under FORGE_HOME,
// the protected-path fact (R8.4), and the push of the forge/… branch — unless the diff holds
// a secret (R3.3) or the chain only reviews.
import { existsSync } from "node:fs";
import { lstat, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RunArtifacts } from "../chain/ports.js";
import type { RunRecord, StepRecord } from "../chain/types.js";
import { type ResolvedConfig, touchesProtected } from "../policy/index.js";
import { redactSecrets, scanSecrets } from "../secrets/index.js";
import { createDiffCache, type DiffCache } from "./diff.js";
import { git, gitLine } from "./git.js";
import { gitDirProblem } from "./git-dir-check.js";
import { renderRunOutput, runOutputPath } from "./run-output.js";
import { loadRunState } from "./run-state.js";

export interface FinishRunDeps {
  runDir(runId: string): string;
  config: ResolvedConfig | null;
  remoteAuth?: (run: RunRecord) => Promise<Record<string, string>>;
  /** Called first (the runner kills the run's warm agents). */
  beforeFinish?: (runId: string) => Promise<void>;
  /** The runner's diffs (the security step's is the run output's too). */
  diffs?: DiffCache;
}

export function createFinishRun(
  deps: FinishRunDeps,
): (run: RunRecord, steps: StepRecord[]) => Promise<RunArtifacts> {
  const diffs = deps.diffs ?? createDiffCache();
  return async function finishRun(run: RunRecord, steps: StepRecord[]): Promise<RunArtifacts> {
    await deps.beforeFinish?.(run.id);
    const dir = deps.runDir(run.id);
    const repo = join(dir, "repo");
    const events: RunArtifacts["events"] = [];
    if (!existsSync(join(repo, ".git")) || !run.baseSha || !run.branch) {
      return { runOutputPath: null, branch: null, headSha: null, events };
    }
    const state = await loadRunState(dir);
    // No git at all in a workspace whose .git is not git's own (git-dir-check.ts): the run
    // output stays under FORGE_HOME and says why.
    const unsafe = await gitDirProblem(repo);
    if (unsafe) {
      const markdown = await renderRunOutput({
        run,
        steps,
        diffStat: "(not read)",
        controls: [],
        notes: [...new Set([...state.notes, unsafe])],
        redact: async (t) => (await redactSecrets(t)).text,
      });
      await writeFile(join(dir, "run-output.md"), markdown);
      events.push({
        type: "run.output",
        data: { path: join(dir, "run-output.md"), pushed: false, reason: unsafe },
      });
      return { runOutputPath: join(dir, "run-output.md"), branch: null, headSha: null, events };
    }
    const workHead = await gitLine(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: repo });
    const facts = await diffs.diff(repo, run.baseSha, workHead);
    const path = runOutputPath(run.id);
    // R8.4: the one gate function decides whether the change touches a protected path; the
    // App's merge gate reads this event, and the run output says it is never auto-merged.
    const protectedTouch = deps.config
      ? touchesProtected(
          facts.files,
          deps.config.protectedPaths.map((p) => p.pattern),
        )
      : { touched: false, files: [] };
    if (protectedTouch.touched) {
      events.push({ type: "protected.touched", data: { files: protectedTouch.files } });
      state.notes.push(
        `protected paths touched (never auto-merged; needs an approved /forge approve): ${protectedTouch.files.join(", ")}`,
      );
    }
    const markdown = await renderRunOutput({
      run,
      steps,
      diffStat: facts.stat,
      controls: state.controls.map((c) => ({
        name: c.name,
        advisory: c.advisory,
        ok: c.exitCode === 0,
        exitCode: c.exitCode,
      })),
      notes: [...new Set(state.notes)],
      redact: async (t) => (await redactSecrets(t)).text,
    });
    await writeFile(join(dir, "run-output.md"), markdown);
    const placed = await writeIntoWorkspace(repo, path, markdown);
    // R3.3: a secret in the diff is never pushed. The run output stays local and says why.
    const secretsInDiff = (await scanSecrets(facts.diff)).length;
    if (secretsInDiff > 0 || run.chain === "review" || !placed) {
      const reason =
        secretsInDiff > 0
          ? "the diff holds a secret: nothing was pushed"
          : run.chain === "review"
            ? "review chains do not push"
            : `${path} could not be written into the workspace (.forge is not a plain directory there): nothing was pushed`;
      events.push({
        type: "run.output",
        data: { path: join(dir, "run-output.md"), pushed: false, reason },
      });
      return {
        runOutputPath: join(dir, "run-output.md"),
        branch: run.branch,
        headSha: facts.head,
        events,
      };
    }
    await git(["add", "--force", "--", path], { cwd: repo });
    await git(["commit", "--quiet", "--no-verify", "-m", `forge: run output ${run.id}`], {
      cwd: repo,
      allowFailure: true,
    });
    const head = (await git(["rev-parse", "HEAD"], { cwd: repo })).stdout.trim();
    if (!run.branch.startsWith("forge/"))
      throw new Error(`refusing to push a non-forge branch: ${run.branch}`);
    await git(["push", "--quiet", "origin", `HEAD:refs/heads/${run.branch}`], {
      cwd: repo,
      ...(deps.remoteAuth ? { env: await deps.remoteAuth(run) } : {}),
    });
    events.push({ type: "run.output", data: { path, pushed: true, branch: run.branch, head } });
    return { runOutputPath: path, branch: run.branch, headSha: head, events };
  };
}

/**
 * Writes the run output at `path` in the workspace without following a link. The builder's
 * commit decides what `.forge` is, and this write runs on the host: a `.forge` symlink, or a
 * link at the output's own name (the run id is in the agent's environment), would otherwise
 * make the runner write anywhere it may. False (nothing written) unless `.forge` is a real
 * directory; an existing file at the path is replaced, never written through.
 */
async function writeIntoWorkspace(repo: string, path: string, text: string): Promise<boolean> {
  const parent = join(repo, dirname(path));
  await mkdir(parent, { recursive: true }).catch(() => {});
  const kind = await lstat(parent).catch(() => null);
  if (!kind?.isDirectory()) return false;
  const file = join(repo, path);
  try {
    await rm(file, { force: true });
    // "wx": O_CREAT|O_EXCL, which never follows a symlink at the final name.
    await writeFile(file, text, { flag: "wx" });
    return true;
  } catch {
    return false; // a directory in its place
  }
}
