// R5.2: the diff is `git diff <measured base>..HEAD`, computed by the runner.
import { git } from "./git.js";

export interface DiffFacts {
  base: string;
  head: string;
  diff: string;
  stat: string;
  files: string[];
}

export async function diffFromBase(dir: string, baseSha: string): Promise<DiffFacts> {
  const head = (await git(["rev-parse", "HEAD"], { cwd: dir })).stdout.trim();
  const range = `${baseSha}..${head}`;
  // --text and --no-textconv: a file the builder marks `-diff` or `binary` in .gitattributes,
  // or gives a textconv driver, shows its real content — the reviewer, the security role and
  // the secret scan read this diff, and nothing may hide from them. (A real binary file then
  // shows as text; the prompt's size limit still holds.)
  const [diff, stat, names] = await Promise.all([
    git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--text", range], { cwd: dir }),
    git(["diff", "--stat", "--no-color", range], { cwd: dir }),
    git(["diff", "--name-only", "-z", range], { cwd: dir }),
  ]);
  return {
    base: baseSha,
    head,
    diff: diff.stdout,
    stat: stat.stdout.trimEnd(),
    files: names.stdout.split("\0").filter(Boolean),
  };
}

/** Commit whatever the builder left uncommitted (the runner commits, not the agent). */
export async function commitPending(dir: string, message: string): Promise<boolean> {
  const status = await git(["status", "--porcelain"], { cwd: dir });
  if (!status.stdout.trim()) return false;
  await git(["add", "-A"], { cwd: dir });
  await git(["commit", "--quiet", "--no-verify", "-m", message], { cwd: dir });
  return true;
}
