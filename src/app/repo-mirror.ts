/**
 * One bare mirror per repository under FORGE_HOME/repos/<owner>/<repo>.git, fetched (with
 * the installation token, through git's environment) before work starts. It serves three
 * things that must read the repository before any run exists: the policy from the default
 * branch (R8.1), the frozen role snapshot (R8.5) and the box proof (R7.2), whose key — the
 * mirror's path — stays the same for the repository across runs.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gitRunnerIn } from "../cli/local/git-runner.js";
import { loadRepoPolicy, type RepoPolicy, type RepoPolicyDeps } from "../policy/index.js";
import { git } from "../runner/git.js";

const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,255}$/;

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
      const dir = join(forgeHome, "repos", request.owner, `${request.repo}.git`);
      return serial(dir, async () => {
        if (!BRANCH.test(request.defaultBranch)) {
          throw new Error("the repository's default branch name is not usable");
        }
        const env = request.gitEnv;
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
  };
}
