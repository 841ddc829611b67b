// What agents see of a commit, and how their work goes back onto the real one (R4.8): a
// committed file on a secret path (the guard's list: `.env` and its filled variants,
// `**/secrets/**`, `*.pem`, ssh keys, `.claude/`, …) is left out of every commit an agent's
// workspace is laid out from, and that commit has no real history. So no tool — Read, Grep,
// `git show <blob>`, `git log -p`, `git grep` — can reach such a file's content: the objects
// are not there. The builder's tree is re-applied onto the real base with those files put back
// exactly as they were; a builder whose tree holds a file on a secret path FAILs.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPathSecretRule } from "../guard/secret-paths.js";
import { git, gitLine } from "./git.js";

export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  path: string;
}

/** Every entry of a commit's tree, recursively (blobs, links and gitlinks). */
export async function listTree(repo: string, commit: string): Promise<TreeEntry[]> {
  const out = await git(["ls-tree", "-r", "-z", "--full-tree", commit], { cwd: repo });
  const entries: TreeEntry[] = [];
  for (const record of out.stdout.split("\0")) {
    if (!record) continue;
    const m = /^(\d{6}) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(record);
    if (!m) throw new Error(`unexpected git ls-tree output: ${record.slice(0, 120)}`);
    entries.push({ mode: m[1] ?? "", type: m[2] ?? "", oid: m[3] ?? "", path: m[4] ?? "" });
  }
  return entries;
}

export function isHiddenPath(path: string): boolean {
  return repoPathSecretRule(path) !== null;
}

/** A fixed identity and date: the same base gives the same commit after a restart. */
function commitEnv(date: string): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: "forgechain",
    GIT_AUTHOR_EMAIL: "forgechain@users.noreply.github.com",
    GIT_COMMITTER_NAME: "forgechain",
    GIT_COMMITTER_EMAIL: "forgechain@users.noreply.github.com",
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
}

/**
 * A tree built in a throw-away index. Some index commands insist on a work tree even in a bare
 * repository: they get an empty directory of the runner's, which none of them reads.
 */
export async function withIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "forge-index-"));
  try {
    const work = join(dir, "work");
    await mkdir(work);
    return await fn({ GIT_INDEX_FILE: join(dir, "index"), GIT_WORK_TREE: work });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The commit agents get for `commit` of real.git: its tree without the files on secret paths,
 * with `parent` (a sanitized commit) or none. Written into real.git; run-repos.ts copies it.
 */
export async function sanitizedCommit(
  real: string,
  commit: string,
  parent: string | null,
  runId: string,
): Promise<{ commit: string; hidden: TreeEntry[] }> {
  const [entries, date] = await Promise.all([
    listTree(real, commit),
    gitLine(["show", "-s", "--format=%cI", commit], { cwd: real }),
  ]);
  const hidden = entries.filter((e) => isHiddenPath(e.path));
  const tree = hidden.length
    ? await withIndex(async (env) => {
        await git(["read-tree", commit], { cwd: real, env });
        await git(["update-index", "--force-remove", "-z", "--stdin"], {
          cwd: real,
          env,
          input: hidden.map((e) => `${e.path}\0`).join(""),
        });
        return gitLine(["write-tree"], { cwd: real, env });
      })
    : `${commit}^{tree}`;
  const message = parent
    ? `forgechain: the change under review (run ${runId})`
    : `forgechain: the base of run ${runId}, without history and without files on secret paths`;
  const sha = await gitLine(
    ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", message],
    { cwd: real, env: commitEnv(date) },
  );
  return { commit: sha, hidden };
}

/** Why the builder's tree may not go back onto the base, or null. */
export function treeProblem(entries: readonly TreeEntry[]): string | null {
  for (const e of entries) {
    if (e.path.split("/").some((s) => s.toLowerCase() === ".git")) {
      return `the builder's work holds a path inside .git (${e.path.slice(0, 200)})`;
    }
    if (isHiddenPath(e.path)) {
      return `the builder's work holds a file on a secret path (${e.path.slice(0, 200)}): agents may not write secret files, and nothing of it is used`;
    }
  }
  return null;
}

/**
 * The builder's tree (`agentCommit`, readable in real.git) re-applied onto the real base: its
 * entries, plus the base's files on secret paths (`hidden`, from the base's tree) exactly as
 * they were. Returns the new commit on top of `baseSha`, or `baseSha` itself when nothing
 * changed.
 */
export async function applyOntoBase(
  real: string,
  agentCommit: string,
  baseSha: string,
  hidden: readonly TreeEntry[],
  message: string,
): Promise<string> {
  const tree = hidden.length
    ? await withIndex(async (env) => {
        await git(["read-tree", agentCommit], { cwd: real, env });
        await git(["update-index", "--add", "-z", "--index-info"], {
          cwd: real,
          env,
          input: hidden.map((e) => `${e.mode} ${e.oid}\t${e.path}\0`).join(""),
        });
        return gitLine(["write-tree"], { cwd: real, env });
      })
    : `${agentCommit}^{tree}`;
  const [newTree, baseTree] = (
    await gitLine(["rev-parse", tree, `${baseSha}^{tree}`], { cwd: real })
  ).split("\n");
  if (newTree === baseTree) return baseSha;
  return gitLine(["commit-tree", newTree ?? tree, "-p", baseSha, "-m", message], { cwd: real });
}
