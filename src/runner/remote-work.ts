// A run whose steps run on other machines (GitHub Actions jobs, R10.2) keeps its state in two
// places nobody has to share a disk for: the builder's work as a ref of the repository itself,
// and the runner's notes (control results, costs) handed along in the App's journal.
// - The job that ran the builder pushes its re-applied work (real.git's WORK_REF) to
//   `refs/forge/runs/<run>/work-<index>-<attempt>` with the workflow's token. A ref outside
//   refs/heads: no branch appears in the repository's list, no `push` workflow starts.
// - The App fetches that ref into its own real.git, checks that it is the commit the job
//   reported and that it stands on the run's base, and makes it the run's work: the diff, the
//   secret scan and the run output are computed from it by the App, not taken from the job.
// - A later job fetches the same ref, and reviews it as the head of its run.
import { mkdir } from "node:fs/promises";
import type { RunRecord } from "../chain/types.js";
import { createDiffCache } from "./diff.js";
import { git } from "./git.js";
import { measureRun, openRunRepos, readRef, runRepos, setRef, WORK_REF } from "./run-repos.js";
import { loadRunState, type RunState, saveRunState } from "./run-state.js";

export interface PushedWork {
  ref: string;
  sha: string;
}

const WORK_REF_PATTERN = /^refs\/forge\/runs\/[A-Za-z0-9_-]{1,128}\/work-\d{1,5}-\d{1,4}$/;
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Where the job running a builder step pushes that attempt's work. */
export function workRefOf(runId: string, index: number, attempt: number): string {
  return `refs/forge/runs/${runId}/work-${index}-${attempt}`;
}

/** Whether `work` names a work ref and a commit id (a report is untrusted input). */
export function isPushedWork(work: unknown): work is PushedWork {
  const w = work as Partial<PushedWork> | null;
  return (
    typeof w?.ref === "string" &&
    WORK_REF_PATTERN.test(w.ref) &&
    typeof w.sha === "string" &&
    SHA.test(w.sha)
  );
}

type Auth = Record<string, string> | undefined;

/** The job: pushes the run's work under `ref`; null when the step left no work. */
export async function pushWork(
  runDir: string,
  ref: string,
  auth: Auth,
): Promise<PushedWork | null> {
  const { real } = runRepos(runDir);
  const sha = await readRef(real, WORK_REF);
  if (!sha) return null;
  await git(["push", "--quiet", "--no-verify", "origin", `+${sha}:${ref}`], {
    cwd: real,
    ...(auth ? { env: auth } : {}),
  });
  return { ref, sha };
}

/**
 * Fetches pushed work into the run's real.git (cloned when missing) and makes it the run's
 * work. Throws, saying why, when the ref is missing, holds another commit than the reported
 * one, or does not stand on the run's base.
 */
export async function fetchWork(
  runDir: string,
  run: Pick<RunRecord, "repo" | "baseSha">,
  work: PushedWork,
  auth: Auth,
): Promise<void> {
  if (!isPushedWork(work)) throw new Error("the reported work names no work ref and commit");
  const repos = await openRunRepos(runDir, run.repo.remote, async () => auth);
  if ((await readRef(repos.real, WORK_REF)) === work.sha) return;
  const fetched = await git(
    ["fetch", "--quiet", "--no-tags", "origin", `+${work.ref}:${work.ref}`],
    {
      cwd: repos.real,
      allowFailure: true,
      ...(auth ? { env: auth } : {}),
    },
  );
  const found = fetched.exitCode === 0 ? await readRef(repos.real, work.ref) : null;
  if (found !== work.sha) {
    throw new Error(
      `the builder's work is not in the repository: ${work.ref} is ${found ? `at ${found}` : "missing"}, the job reported ${work.sha}`,
    );
  }
  if (run.baseSha) {
    const onBase = await git(["merge-base", "--is-ancestor", run.baseSha, work.sha], {
      cwd: repos.real,
      allowFailure: true,
    });
    if (onBase.exitCode !== 0) {
      throw new Error(
        `the pushed work ${work.sha} does not stand on the run's base ${run.baseSha}`,
      );
    }
  }
  await setRef(repos.real, WORK_REF, work.sha);
}

/**
 * The App: the run's real diff (base..work) from its own repositories, measured again when
 * this process never had them (another replica prepared the run) and with `work` fetched when
 * given. For the security step's secret rule and the run output.
 */
export async function workDiff(
  runDir: string,
  run: RunRecord,
  work: PushedWork | null,
  auth: Auth,
): Promise<string> {
  await ensureRunWork(runDir, run, work, auth);
  const { real } = runRepos(runDir);
  const base = run.baseSha ?? "";
  const head = (await readRef(real, WORK_REF)) ?? base;
  return (await diffs.diff(real, base, head)).diff;
}

const diffs = createDiffCache(8);

/** The run's repositories, measured, with `work` as the run's work when given. */
export async function ensureRunWork(
  runDir: string,
  run: RunRecord,
  work: PushedWork | null,
  auth: Auth,
): Promise<void> {
  await mkdir(runDir, { recursive: true });
  const repos = await openRunRepos(runDir, run.repo.remote, async () => auth);
  if (work) await fetchWork(runDir, run, work, auth);
  await measureRun(repos, {
    runId: run.id,
    baseRef: run.repo.baseRef,
    ...(run.repo.headRef !== undefined ? { headRef: run.repo.headRef } : {}),
    knownBaseSha: run.baseSha,
    auth: async () => auth,
  });
}

/** What a job needs of the runner's notes and gives back: everything but its own setup. */
export type HandedState = Omit<RunState, "setup">;

export async function handedState(runDir: string): Promise<HandedState> {
  const { setup: _local, ...rest } = await loadRunState(runDir);
  return rest;
}

/** Takes the notes another machine's runner kept, keeping this machine's own setup. */
export async function takeHandedState(runDir: string, handed: unknown): Promise<void> {
  const h = handed as Partial<HandedState> | null;
  if (!h || !Array.isArray(h.controls) || !Array.isArray(h.notes)) return;
  await mkdir(runDir, { recursive: true });
  const own = await loadRunState(runDir);
  await saveRunState(runDir, {
    controls: h.controls,
    controlLines: Array.isArray(h.controlLines) ? h.controlLines : [],
    notes: h.notes.filter((n): n is string => typeof n === "string"),
    ...(Array.isArray(h.usage) ? { usage: h.usage } : {}),
    ...(Array.isArray(h.denied) ? { denied: h.denied } : {}),
    ...(own.setup ? { setup: own.setup } : {}),
  });
}
