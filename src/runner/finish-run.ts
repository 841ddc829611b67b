// The end of a run: the run output (R9.3) written under FORGE_HOME and committed on top of the
// builder's re-applied work, the protected-path fact (R8.4), and the push of the forge/…
// branch — unless the diff holds a secret (R3.3) or the chain only reviews. Everything here
// runs in real.git, the runner's own repository (run-repos.ts): the run output is committed
// with git's plumbing (no work tree, no file written through a link the builder committed).
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunArtifacts } from "../chain/ports.js";
import type { RunRecord, StepRecord } from "../chain/types.js";
import { type ResolvedConfig, touchesProtected, verifyInputsTouched } from "../policy/index.js";
import { redactSecrets, scanSecrets } from "../secrets/index.js";
import { withIndex } from "./agent-tree.js";
import { createDiffCache, type DiffCache } from "./diff.js";
import { git, gitLine } from "./git.js";
import { type RunNetwork, renderRunOutput, runOutputPath } from "./run-output.js";
import { readRef, runRepos, WORK_REF } from "./run-repos.js";
import { loadRunState, type RunState } from "./run-state.js";

export interface FinishRunDeps {
  runDir(runId: string): string;
  config: ResolvedConfig | null;
  remoteAuth?: (run: RunRecord) => Promise<Record<string, string>>;
  /**
   * The commit the run's branch must still be at on the remote for the push to replace it
   * (`--force-with-lease`; "" = it must not exist yet). Undefined: a plain push. The App sets it
   * when a new run of an issue updates the branch forgechain pushed before (its work sits on the
   * current base, so the push is no fast-forward) — and never over a commit a human pushed.
   */
  branchLease?: (run: RunRecord) => string | undefined | Promise<string | undefined>;
  /** Called first (the runner kills the run's warm agents). */
  beforeFinish?: (runId: string) => Promise<void>;
  /** The runner's diffs (the security step's is the run output's too). */
  diffs?: DiffCache;
  /** The network the run's boxes had, for the run output (run-egress.ts). */
  network?: (state: RunState) => Promise<RunNetwork>;
}

export function createFinishRun(
  deps: FinishRunDeps,
): (run: RunRecord, steps: StepRecord[]) => Promise<RunArtifacts> {
  const diffs = deps.diffs ?? createDiffCache();
  return async function finishRun(run: RunRecord, steps: StepRecord[]): Promise<RunArtifacts> {
    await deps.beforeFinish?.(run.id);
    const dir = deps.runDir(run.id);
    const { real } = runRepos(dir);
    const events: RunArtifacts["events"] = [];
    if (!existsSync(join(real, "HEAD")) || !run.baseSha || !run.branch) {
      return { runOutputPath: null, branch: null, headSha: null, events };
    }
    const state = await loadRunState(dir);
    const workHead = (await readRef(real, WORK_REF)) ?? run.baseSha;
    const facts = await diffs.diff(real, run.baseSha, workHead);
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
      verifyInputs: verifyInputsTouched(facts.files),
      ...(state.setup
        ? {
            setup: {
              commands: state.setup.commands ?? [],
              results: state.setup.results,
              ...(state.setup.seconds !== undefined ? { seconds: state.setup.seconds } : {}),
            },
          }
        : {}),
      usage: state.usage ?? [],
      ...(deps.network ? { network: await deps.network(state) } : {}),
      redact: async (t) => (await redactSecrets(t)).text,
    });
    const local = join(dir, "run-output.md");
    await writeFile(local, markdown);
    // R3.3: a secret in the diff is never pushed. The run output stays local and says why.
    const secretsInDiff = (await scanSecrets(facts.diff)).length;
    const committed =
      secretsInDiff > 0 || run.chain === "review"
        ? null
        : await commitRunOutput(real, workHead, path, markdown, run.id);
    if (committed === null) {
      const reason =
        secretsInDiff > 0
          ? "the diff holds a secret: nothing was pushed"
          : run.chain === "review"
            ? "review chains do not push"
            : `${path} could not be added to the branch (.forge is not a plain directory there): nothing was pushed`;
      events.push({ type: "run.output", data: { path: local, pushed: false, reason } });
      return { runOutputPath: local, branch: run.branch, headSha: facts.head, events };
    }
    if (!run.branch.startsWith("forge/"))
      throw new Error(`refusing to push a non-forge branch: ${run.branch}`);
    const auth = deps.remoteAuth ? await deps.remoteAuth(run) : undefined;
    const lease = await deps.branchLease?.(run);
    if (lease !== undefined && !/^(?:[0-9a-f]{40}|[0-9a-f]{64})?$/.test(lease)) {
      throw new Error(`refusing a push lease that is no commit id: ${lease.slice(0, 80)}`);
    }
    const leased =
      lease === undefined ? [] : [`--force-with-lease=refs/heads/${run.branch}:${lease}`];
    await Promise.all([
      git(["update-ref", `refs/heads/${run.branch}`, committed], { cwd: real }),
      git(["push", "--quiet", ...leased, "origin", `${committed}:refs/heads/${run.branch}`], {
        cwd: real,
        ...(auth ? { env: auth } : {}),
      }),
    ]);
    events.push({
      type: "run.output",
      data: { path, pushed: true, branch: run.branch, head: committed },
    });
    return { runOutputPath: path, branch: run.branch, headSha: committed, events };
  };
}

/**
 * The run output as a commit on `parent`, built in a throw-away index: nothing is written
 * through the tree the builder committed. Null (nothing to push) when `.forge` in that tree is
 * not a directory, or the output's own path is one. The parent's date is the commit's, so a
 * repeated finish (a restart) makes the very same commit and the push stays a no-op.
 */
async function commitRunOutput(
  real: string,
  parent: string,
  path: string,
  text: string,
  runId: string,
): Promise<string | null> {
  const [listed, blob, date] = await Promise.all([
    git(["ls-tree", "-z", parent, "--", ".forge", path], { cwd: real }),
    gitLine(["hash-object", "-w", "--stdin"], { cwd: real, input: text }),
    gitLine(["show", "-s", "--format=%cI", parent], { cwd: real }),
  ]);
  for (const record of listed.stdout.split("\0")) {
    const m = /^(\d{6}) (\w+) [0-9a-f]+\t(.*)$/s.exec(record);
    if (!m) continue;
    if (m[3] === ".forge" && m[2] !== "tree") return null;
    if (m[3] === path && m[2] !== "blob") return null;
  }
  const tree = await withIndex(async (env) => {
    await git(["read-tree", parent], { cwd: real, env });
    await git(["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], {
      cwd: real,
      env,
    });
    return gitLine(["write-tree"], { cwd: real, env });
  });
  return gitLine(["commit-tree", tree, "-p", parent, "-m", `forge: run output ${runId}`], {
    cwd: real,
    env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
}
