// A run's workspace: a fresh clone of the repository at the measured base commit, on the
// run's own branch. The clone is owned by the run (R5.2: the diff is computed from the base
// measured here, never from what an agent says).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { git, gitLine, revParse } from "./git.js";

export interface Workspace {
  dir: string;
  baseSha: string;
  branch: string;
}

const MAX_SLUG = 40;

/** `forge/<issue>-<slug>`; the slug is derived from untrusted text, so it is reduced to a-z0-9-. */
export function branchName(title: string, number: number | undefined, runId: string): string {
  const slug =
    title
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, MAX_SLUG)
      .replace(/-+$/g, "") || "change";
  const prefix = number === undefined ? `local-${runId.slice(0, 8)}` : String(number);
  return `forge/${prefix}-${slug}`;
}

/**
 * Clone `remote` into `dir` (if not already there — a resumed run reuses its clone), check out
 * `baseRef`, create `branch`. Returns the measured base sha.
 */
export async function prepareWorkspace(opts: {
  remote: string;
  baseRef: string;
  dir: string;
  branch: string;
  /** When resuming, the base measured the first time. */
  knownBaseSha?: string | null;
  /** Review chains: check out this head; the base becomes its merge base with baseRef. */
  headRef?: string;
  /** Environment for the clone only (the App's git credential, see LocalRunnerOptions). */
  gitEnv?: Record<string, string>;
}): Promise<Workspace> {
  if (!existsSync(`${opts.dir}/.git`)) {
    await mkdir(dirname(opts.dir), { recursive: true });
    await git(["clone", "--quiet", "--no-checkout", "--", opts.remote, opts.dir], {
      cwd: dirname(opts.dir),
      ...(opts.gitEnv ? { env: opts.gitEnv } : {}),
    });
    const base = await resolveRemoteRef(opts.dir, opts.baseRef);
    let start = opts.knownBaseSha ?? base;
    let baseSha = start;
    if (opts.headRef !== undefined) {
      start = await resolveRemoteRef(opts.dir, opts.headRef);
      baseSha =
        opts.knownBaseSha ?? (await gitLine(["merge-base", base, start], { cwd: opts.dir }));
    }
    await git(["checkout", "--quiet", "-B", opts.branch, start], { cwd: opts.dir });
    return { dir: opts.dir, baseSha, branch: opts.branch };
  }
  const baseSha = opts.knownBaseSha ?? (await revParse("HEAD", opts.dir));
  const current = await gitLine(["rev-parse", "--abbrev-ref", "HEAD"], { cwd: opts.dir });
  if (current !== opts.branch) {
    await git(["checkout", "--quiet", opts.branch], { cwd: opts.dir });
  }
  return { dir: opts.dir, baseSha, branch: opts.branch };
}

async function resolveRemoteRef(dir: string, ref: string): Promise<string> {
  for (const candidate of [`refs/remotes/origin/${ref}`, ref]) {
    const r = await git(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`], {
      cwd: dir,
      allowFailure: true,
    });
    if (r.exitCode === 0) return r.stdout.trim();
  }
  throw new Error(`base ref "${ref}" does not exist in the repository`);
}

/** The default branch of a clone's origin (what `HEAD` of the remote points at). */
export async function remoteDefaultBranch(remote: string, cwd: string): Promise<string> {
  const out = await gitLine(["ls-remote", "--symref", "--", remote, "HEAD"], { cwd });
  const m = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(out);
  if (!m?.[1]) throw new Error(`cannot find the default branch of ${remote}`);
  return m[1];
}
