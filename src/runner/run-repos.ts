// The runner's own repositories of a run (R4.7, R4.8). git's rule: fetching from an untrusted
// repository is safe, running git inside one is not. So the host's git runs only in two bare
// repositories the runner creates and never binds writable into a box:
// - `real.git`: a clone of the remote. The base is measured here; the builder's work is
//   re-applied onto the real base here; the diff, the secret scan, the run output's commit and
//   the push all happen here.
// - `agents.git`: the commits agents see — the base without the files on secret paths and
//   without history (agent-tree.ts), then the builder's imported work on top of it. Every
//   step's workspace is laid out from it inside a box (step-workspace.ts).
// Refs of agents.git: `refs/forge/base` (what the architect and the builder start from) and
// `refs/forge/head` (what the reviewer and security review). Refs of real.git:
// `refs/forge/work` (the builder's work re-applied onto the real base).
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isHiddenPath, listTree, sanitizedCommit, type TreeEntry } from "./agent-tree.js";
import { git, gitLine } from "./git.js";

export interface RunRepos {
  real: string;
  agents: string;
}

export interface RunBase {
  /** The measured base in the real repository (R5.2). */
  baseSha: string;
  /** Review chains: the real head under review. */
  headSha?: string;
  /** agents.git: the base agents start from. */
  agentBase: string;
  /** agents.git: what read-only steps after the builder (or in a review) look at. */
  agentHead: string;
  /** real.git: what the real diff ends at — the builder's re-applied work or the review's head. */
  workHead: string;
  /** Files on secret paths left out of the agents' commits (base and head). */
  hidden: string[];
  /** The base's own such files, as they are in its tree (put back onto the builder's work). */
  hiddenEntries: TreeEntry[];
}

export const AGENT_BASE_REF = "refs/forge/base";
export const AGENT_HEAD_REF = "refs/forge/head";
export const WORK_REF = "refs/forge/work";

export function runRepos(runDir: string): RunRepos {
  return { real: join(runDir, "git", "real.git"), agents: join(runDir, "git", "agents.git") };
}

/**
 * Creates the run's repositories when they are missing (a resumed run reuses them): the
 * remote is cloned bare into a temporary name and renamed, so a crash mid-clone leaves
 * nothing half-made under the real name.
 */
/** The git credential for the remote, asked for only when the remote is really used. */
export type GitAuth = () => Promise<Record<string, string> | undefined>;

export async function openRunRepos(
  runDir: string,
  remote: string,
  auth?: GitAuth,
): Promise<RunRepos> {
  const repos = runRepos(runDir);
  const parent = join(runDir, "git");
  await mkdir(parent, { recursive: true, mode: 0o700 });
  if (!existsSync(join(repos.real, "HEAD"))) {
    const tmp = `${repos.real}.partial`;
    await rm(tmp, { recursive: true, force: true });
    const env = await auth?.();
    await git(["clone", "--quiet", "--bare", "--", remote, tmp], {
      cwd: parent,
      ...(env ? { env } : {}),
    });
    await rename(tmp, repos.real);
  }
  if (!existsSync(join(repos.agents, "HEAD"))) {
    const tmp = `${repos.agents}.partial`;
    await rm(tmp, { recursive: true, force: true });
    await git(["init", "--quiet", "--bare", tmp], { cwd: parent });
    await rename(tmp, repos.agents);
  }
  // real.git reads the builder's imported objects where they are, in agents.git (both are the
  // runner's; agents.git holds sanitized commits and checked bundles only): no second copy,
  // no fetch between them. Never the other way round — agents.git must not reach real objects.
  const alternates = join(repos.real, "objects", "info", "alternates");
  if (!existsSync(alternates)) {
    await mkdir(dirname(alternates), { recursive: true });
    await writeFile(alternates, `${join(repos.agents, "objects")}\n`);
  }
  return repos;
}

/** A ref of the remote (a branch name or a commit id) as a commit id of real.git. */
export async function resolveRemoteRef(real: string, ref: string, auth?: GitAuth): Promise<string> {
  const found = await commitOf(real, ref);
  if (found) return found;
  // A pull request's head that no branch holds: fetch that commit by its id.
  if (/^[0-9a-f]{40}$/.test(ref)) {
    const env = await auth?.();
    await git(["fetch", "--quiet", "--no-tags", "origin", ref], {
      cwd: real,
      allowFailure: true,
      ...(env ? { env } : {}),
    });
    const fetched = await commitOf(real, ref);
    if (fetched) return fetched;
  }
  throw new Error(`base ref "${ref}" does not exist in the repository`);
}

async function commitOf(real: string, ref: string): Promise<string | null> {
  if (ref.startsWith("-")) return null;
  for (const candidate of [`refs/heads/${ref}`, ref]) {
    const r = await git(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`], {
      cwd: real,
      allowFailure: true,
    });
    if (r.exitCode === 0) return r.stdout.trim();
  }
  return null;
}

/** The value of a ref, or null when it does not exist. */
export async function readRef(repo: string, ref: string): Promise<string | null> {
  const r = await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    cwd: repo,
    allowFailure: true,
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

export async function setRef(repo: string, ref: string, sha: string): Promise<void> {
  await git(["update-ref", ref, sha], { cwd: repo });
}

/**
 * Measures the base (and, for a review, the head) in real.git and gives agents.git its
 * commits. Idempotent: a resumed run finds its refs and keeps them (the first measure wins).
 */
export async function measureRun(
  repos: RunRepos,
  o: {
    runId: string;
    baseRef: string;
    headRef?: string;
    knownBaseSha?: string | null;
    auth?: GitAuth;
  },
): Promise<RunBase> {
  // Independent reads side by side: each git process costs milliseconds on a busy machine.
  const [base, headSha, knownAgentBase, knownAgentHead, work] = await Promise.all([
    resolveRemoteRef(repos.real, o.baseRef, o.auth),
    o.headRef !== undefined ? resolveRemoteRef(repos.real, o.headRef, o.auth) : undefined,
    readRef(repos.agents, AGENT_BASE_REF),
    readRef(repos.agents, AGENT_HEAD_REF),
    readRef(repos.real, WORK_REF),
  ]);
  const baseSha =
    o.knownBaseSha ??
    (headSha ? await gitLine(["merge-base", base, headSha], { cwd: repos.real }) : base);
  let hiddenEntries: TreeEntry[];
  let agentBase = knownAgentBase;
  if (!agentBase) {
    const s0 = await sanitizedCommit(repos.real, baseSha, null, o.runId);
    hiddenEntries = s0.hidden;
    agentBase = await shareCommit(repos, s0.commit, AGENT_BASE_REF);
  } else {
    hiddenEntries = await hiddenIn(repos.real, baseSha);
  }
  const hidden = new Set(hiddenEntries.map((e) => e.path));
  let agentHead = knownAgentHead;
  if (!agentHead) {
    if (headSha) {
      const sh = await sanitizedCommit(repos.real, headSha, agentBase, o.runId);
      for (const e of sh.hidden) hidden.add(e.path);
      agentHead = await shareCommit(repos, sh.commit, AGENT_HEAD_REF);
    } else {
      agentHead = agentBase;
      await setRef(repos.agents, AGENT_HEAD_REF, agentBase);
    }
  } else if (headSha) {
    for (const e of await hiddenIn(repos.real, headSha)) hidden.add(e.path);
  }
  // A review's work is the head under review: recorded where the finish reads the work from, so
  // the run's result names that head (the App's gate is set on it) and not the base.
  if (!work && headSha) await setRef(repos.real, WORK_REF, headSha);
  return {
    baseSha,
    ...(headSha ? { headSha } : {}),
    agentBase,
    agentHead,
    workHead: work ?? headSha ?? baseSha,
    hidden: [...hidden].sort(),
    hiddenEntries,
  };
}

async function hiddenIn(real: string, commit: string): Promise<TreeEntry[]> {
  return (await listTree(real, commit)).filter((e) => isHiddenPath(e.path));
}

/**
 * Copies one sanitized commit from real.git into agents.git under `ref`. The push moves
 * only what that commit reaches: its parent chain is sanitized too, so no object of a secret
 * file and no real history crosses.
 */
async function shareCommit(repos: RunRepos, commit: string, ref: string): Promise<string> {
  await git(["push", "--quiet", "--no-verify", repos.agents, `+${commit}:${ref}`], {
    cwd: repos.real,
  });
  return commit;
}
