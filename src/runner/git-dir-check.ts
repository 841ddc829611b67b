// The runner runs git on the host, holding the push credential, in a workspace whose `.git` a
// builder's box could write (it must: commits). Before the runner's git touches such a
// workspace, `.git` must be git's own:
// - a real directory (a `.git` file or link would point git at another repository);
// - holding only directories and regular files: git writes some files by plain open, through
//   links — `git commit` writes the message to `.git/COMMIT_EDITMSG` and appends to
//   `.git/logs/HEAD` — so a link planted there makes the runner overwrite or append to any
//   file it may write (shown in session 6 with a link to a file outside the workspace), and a
//   FIFO there would hang it. Git itself puts no links or special files in `.git`;
// - borrowing no objects (`objects/info/alternates`, `http-alternates`): the runner's git would
//   read, and push, objects of another repository on this machine that a crafted commit
//   points at.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

const BORROWING = ["alternates", "http-alternates"] as const;

/** Why the runner's git must not touch `repo`, or null when its `.git` is git's own. */
export async function gitDirProblem(repo: string): Promise<string | null> {
  const gitDir = join(repo, ".git");
  const top = await lstat(gitDir).catch(() => null);
  if (!top?.isDirectory()) return refused(".git is not a directory");
  const odd = await firstOddEntry(gitDir, ".git");
  if (odd) return refused(`${odd} in .git is a link or a special file`);
  for (const name of BORROWING) {
    const there = await lstat(join(gitDir, "objects", "info", name)).then(
      () => true,
      () => false,
    );
    if (there) return refused(`it borrows git objects from elsewhere (.git/objects/info/${name})`);
  }
  return null;
}

function refused(why: string): string {
  return `the workspace's git directory is not git's own: ${why}; the runner's git neither reads, commits nor pushes it`;
}

/** The first entry under `dir` that is neither a directory nor a regular file (not followed). */
async function firstOddEntry(dir: string, shown: string): Promise<string | null> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries) {
    if (e.isDirectory()) {
      const inner = await firstOddEntry(join(dir, e.name), `${shown}/${e.name}`);
      if (inner) return inner;
    } else if (!e.isFile()) {
      return `${shown}/${e.name}`;
    }
  }
  return null;
}
