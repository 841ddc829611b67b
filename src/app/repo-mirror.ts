/**
 * One bare mirror per repository under FORGE_HOME/repos/<owner>/<repo>.git, fetched (with
 * the installation token, through git's environment) before work starts. It serves four
 * things that must read the repository before any run exists: the policy from the default
 * branch (R8.1), the frozen role snapshot (R8.5), the box proof (R7.2), whose key — the
 * mirror's path — stays the same for the repository across runs, and the heads of the
 * branches a new run may push to (branch-plan.ts).
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadRepoPolicy, type RepoPolicy, type RepoPolicyDeps } from "../policy/index.js";
import { GitError, git, gitRunnerIn } from "../runner/index.js";

const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,255}$/;

/** The clone or fetch of the repository failed (network, credentials, no such repository). */
export class MirrorFetchError extends Error {
  override readonly name = "MirrorFetchError";
  constructor(
    readonly remote: string,
    readonly detail: string,
  ) {
    super(`could not fetch ${remote}: ${detail}`);
  }
}

/**
 * The webhook named a default branch the repository does not have (renamed since, or an empty
 * repository): nothing can be read from it, and saying "no config" would send people looking
 * in the wrong place.
 */
export class MissingDefaultBranchError extends Error {
  override readonly name = "MissingDefaultBranchError";
  constructor(
    readonly branch: string,
    /** Some of the branches the repository does have (at most 10), sorted. */
    readonly existing: string[],
  ) {
    super(`the repository has no branch ${branch}`);
  }
}

export interface MirrorRequest {
  owner: string;
  repo: string;
  /** The token-free remote URL. */
  remote: string;
  defaultBranch: string;
  gitEnv: Record<string, string>;
}

export interface RepoMirrors {
  /** Clone or fetch the mirror; returns its directory. Serialised per repository. */
  sync(request: MirrorRequest): Promise<string>;
  /** The repository's policy, read from the mirror's default branch. Throws ConfigError. */
  policy(mirrorDir: string, deps: Omit<RepoPolicyDeps, "git">): Promise<RepoPolicy>;
  /** The commit each named branch is at in the mirror (as last fetched); absent: no branch. */
  heads(mirrorDir: string, branches: readonly string[]): Promise<Map<string, string>>;
}

/** Where a repository's mirror lives under FORGE_HOME (a box's proof is keyed by this path). */
export function mirrorDirFor(forgeHome: string, owner: string, repo: string): string {
  return join(forgeHome, "repos", owner, `${repo}.git`);
}

export function createRepoMirrors(forgeHome: string): RepoMirrors {
  const locks = new Map<string, Promise<unknown>>();

  function serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = locks.get(key) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(fn);
    locks.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  return {
    sync(request) {
      const dir = mirrorDirFor(forgeHome, request.owner, request.repo);
      return serial(dir, async () => {
        if (!BRANCH.test(request.defaultBranch)) {
          throw new Error("the repository's default branch name is not usable");
        }
        const env = request.gitEnv;
        try {
          if (!existsSync(join(dir, "HEAD"))) {
            await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
            await rm(dir, { recursive: true, force: true });
            await git(["clone", "--quiet", "--mirror", "--", request.remote, dir], {
              cwd: dirname(dir),
              env,
            });
          } else {
            await git(["--git-dir", dir, "fetch", "--quiet", "--prune", "origin"], {
              cwd: dirname(dir),
              env,
            });
          }
        } catch (err) {
          if (!(err instanceof GitError)) throw err;
          throw new MirrorFetchError(request.remote, err.stderr || err.message);
        }
        await requireBranch(dir, request.defaultBranch);
        // The mirror's HEAD follows the default branch GitHub names now (it can be renamed).
        await git(
          ["--git-dir", dir, "symbolic-ref", "HEAD", `refs/heads/${request.defaultBranch}`],
          {
            cwd: dirname(dir),
          },
        );
        return dir;
      });
    },

    async policy(mirrorDir, deps) {
      // readConfigSource reads origin/HEAD of a work tree: a throw-away local clone of the
      // mirror (hard links, no checkout) gives exactly the default branch.
      const tmp = await mkdtemp(join(tmpdir(), "forge-policy-"));
      try {
        const dir = join(tmp, "repo");
        await git(["clone", "--quiet", "--no-checkout", "--", mirrorDir, dir], { cwd: tmp });
        return await loadRepoPolicy(dir, { ...deps, git: gitRunnerIn(dir) });
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    },

    async heads(mirrorDir, branches) {
      const found = new Map<string, string>();
      const wanted = branches.filter((b) => BRANCH.test(b));
      if (wanted.length === 0) return found;
      const out = await git(
        [
          "--git-dir",
          mirrorDir,
          "for-each-ref",
          "--format=%(objectname) %(refname)",
          ...wanted.map((b) => `refs/heads/${b}`),
        ],
        { cwd: dirname(mirrorDir) },
      );
      for (const line of out.stdout.split("\n")) {
        const m = /^([0-9a-f]{40,64}) refs\/heads\/(.+)$/.exec(line);
        // for-each-ref matches prefixes by path component: keep exact names only.
        if (m?.[1] && m[2] && wanted.includes(m[2])) found.set(m[2], m[1]);
      }
      return found;
    },
  };
}

/** Throws MissingDefaultBranchError when the mirror has no such branch. */
async function requireBranch(dir: string, branch: string): Promise<void> {
  const has = await git(
    ["--git-dir", dir, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`],
    { cwd: dirname(dir), allowFailure: true },
  );
  if (has.exitCode === 0) return;
  const listed = await git(
    ["--git-dir", dir, "for-each-ref", "--count=10", "--format=%(refname:lstrip=2)", "refs/heads"],
    { cwd: dirname(dir) },
  );
  throw new MissingDefaultBranchError(
    branch,
    listed.stdout.split("\n").filter((b) => b !== ""),
  );
}
