// R5.2: the diff is `git diff <measured base>..HEAD`, computed by the runner.
import { git, gitLine } from "./git.js";

export interface DiffFacts {
  base: string;
  head: string;
  diff: string;
  stat: string;
  files: string[];
}

export async function diffFromBase(dir: string, baseSha: string): Promise<DiffFacts> {
  // HEAD does not move while the runner diffs (no agent runs on this tree now), so HEAD is read
  // beside the diffs instead of before them.
  const range = `${baseSha}..HEAD`;
  // --text and --no-textconv: a file the builder marks `-diff` or `binary` in .gitattributes,
  // or gives a textconv driver, shows its real content — the reviewer, the security role and
  // the secret scan read this diff, and nothing may hide from them. (A real binary file then
  // shows as text; the prompt's size limit still holds.)
  const [head, diff, stat, names] = await Promise.all([
    gitLine(["rev-parse", "HEAD"], { cwd: dir }),
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
