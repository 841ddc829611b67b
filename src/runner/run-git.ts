// The runner's view of a run's repositories (run-repos.ts), opened and measured once per run
// in this process and kept for its later steps: a step needs them before anything else, and
// measuring again would cost several git processes per step. A restarted runner rebuilds the
// same view from the refs the first measure wrote.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { StepInput } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { ROLES } from "../roles/role-names.js";
import { registerKnownSecrets, secretFileValues } from "../secrets/index.js";
import { git } from "./git.js";
import {
  measureRun,
  openRunRepos,
  type RunBase,
  type RunRepos,
  readRef,
  WORK_REF,
} from "./run-repos.js";

export interface RunGit {
  repos: RunRepos;
  base: RunBase;
  /**
   * A directory holding the real base's `.claude/agents/<role>.md` (the role files' fallback,
   * R2.3): agents' workspaces no longer carry `.claude/`, so the runner reads them from its
   * own repository — regular files only, never through a link.
   */
  roleFilesDir: string;
}

export interface RunGitCache {
  get(run: RunRecord): Promise<RunGit>;
  /** The builder's work became the agents' head and the real work head (builder-import.ts). */
  setWork(runId: string, work: { agentHead: string; workHead: string }): void;
  forget(runId: string): void;
}

export function createRunGitCache(o: {
  runDir(runId: string): string;
  remoteAuth?: (run: RunRecord) => Promise<Record<string, string>>;
}): RunGitCache {
  const cache = new Map<string, Promise<RunGit>>();
  async function open(run: RunRecord): Promise<RunGit> {
    const dir = o.runDir(run.id);
    const auth = async () => (o.remoteAuth ? o.remoteAuth(run) : undefined);
    const repos = await openRunRepos(dir, run.repo.remote, auth);
    const base = await measureRun(repos, {
      runId: run.id,
      baseRef: run.repo.baseRef,
      ...(run.repo.headRef !== undefined ? { headRef: run.repo.headRef } : {}),
      knownBaseSha: run.baseSha,
      auth,
    });
    const roleFilesDir = join(dir, "role-files");
    await Promise.all([
      writeRoleFiles(repos.real, base.baseSha, roleFilesDir),
      registerHiddenValues(repos.real, base),
    ]);
    return { repos, base, roleFilesDir };
  }
  return {
    get(run) {
      let found = cache.get(run.id);
      if (!found) {
        found = open(run);
        cache.set(run.id, found);
        found.catch(() => cache.get(run.id) === found && cache.delete(run.id));
      }
      return found;
    },
    setWork(runId, work) {
      const found = cache.get(runId);
      if (found)
        cache.set(
          runId,
          found.then((g) => ({ ...g, base: { ...g.base, ...work } })),
        );
    },
    forget(runId) {
      cache.delete(runId);
    },
  };
}

/** Hidden files read for their values at most, and at most this large each. */
const MAX_HIDDEN_FILES = 200;
const MAX_HIDDEN_BYTES = 64 * 1024;

/**
 * The values of the files agents are not shown (secret-file-values.ts says why): the controls
 * see them, and whatever a control prints is redacted of them before anyone reads it.
 */
async function registerHiddenValues(real: string, base: RunBase): Promise<void> {
  const commits = base.headSha ? [base.baseSha, base.headSha] : [base.baseSha];
  const specs = commits.flatMap((c) =>
    base.hidden.slice(0, MAX_HIDDEN_FILES).map((path) => `${c}:${path}`),
  );
  if (specs.length === 0) return;
  const sizes = await git(["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"], {
    cwd: real,
    input: `${specs.join("\n")}\n`,
  });
  for (const line of sizes.stdout.split("\n")) {
    const [oid, type, size] = line.split(" ");
    if (!oid || type !== "blob" || Number(size) > MAX_HIDDEN_BYTES) continue;
    const text = await git(["cat-file", "blob", oid], { cwd: real });
    registerKnownSecrets(secretFileValues(text.stdout));
  }
}

async function writeRoleFiles(real: string, baseSha: string, dir: string): Promise<void> {
  const agentsDir = join(dir, ".claude", "agents");
  await mkdir(agentsDir, { recursive: true });
  const paths = ROLES.map((r) => `.claude/agents/${r}.md`);
  const listed = await git(["ls-tree", "-z", baseSha, "--", ...paths], { cwd: real });
  for (const record of listed.stdout.split("\0")) {
    const m = /^100644 blob ([0-9a-f]+)\t\.claude\/agents\/([a-z]+)\.md$/.exec(record);
    if (!m?.[1] || !m[2]) continue;
    const text = await git(["cat-file", "blob", m[1]], { cwd: real });
    await writeFile(join(agentsDir, `${m[2]}.md`), text.stdout);
  }
}

/**
 * Why a step cannot run here, when the builder's work it needs is not in this runner's
 * repositories: the builder PASSed (its work re-applied under WORK_REF in real.git), but this
 * process's FORGE_HOME never saw it — a replica that does not share FORGE_HOME took the run
 * over. Reviewing the bare base instead could PASS a change that is not there.
 */
export async function missingBuilderWork(
  g: Pick<RunGit, "repos">,
  input: Pick<StepInput, "chain" | "prior">,
): Promise<string | null> {
  if (input.chain !== "change") return null;
  const built = input.prior.some((p) => p.role === "builder" && p.decision.verdict === "PASS");
  if (!built || (await readRef(g.repos.real, WORK_REF))) return null;
  return "the builder's work is not in this server's FORGE_HOME (the run was taken over by a replica that does not share it): replicas must share FORGE_HOME — run it again with /forge run";
}
