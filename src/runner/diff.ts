// R5.2: the diff is `git diff <measured base>..HEAD`, computed by the runner.
import { git, gitLine } from "./git.js";

export interface DiffFacts {
  base: string;
  head: string;
  diff: string;
  stat: string;
  files: string[];
}

/**
 * The diff of `baseSha..head`; with `head` unknown, of `baseSha..HEAD` (HEAD does not move while
 * the runner diffs: no agent runs on this tree now, so it is read beside the diffs).
 */
export async function diffFromBase(
  dir: string,
  baseSha: string,
  head?: string,
): Promise<DiffFacts> {
  const range = `${baseSha}..${head ?? "HEAD"}`;
  // --text and --no-textconv: a file the builder marks `-diff` or `binary` in .gitattributes,
  // or gives a textconv driver, shows its real content — the reviewer, the security role and
  // the secret scan read this diff, and nothing may hide from them. (A real binary file then
  // shows as text; the prompt's size limit still holds.)
  const [headSha, diff, stat, names] = await Promise.all([
    head ?? gitLine(["rev-parse", "HEAD"], { cwd: dir }),
    git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--text", range], { cwd: dir }),
    git(["diff", "--stat", "--no-color", range], { cwd: dir }),
    git(["diff", "--name-only", "-z", range], { cwd: dir }),
  ]);
  return {
    base: baseSha,
    head: headSha,
    diff: diff.stdout,
    stat: stat.stdout.trimEnd(),
    files: names.stdout.split("\0").filter(Boolean),
  };
}

export interface DiffCache {
  /** The diff of `baseSha` to `head` (a full commit id), or to HEAD read now. */
  diff(dir: string, baseSha: string, head?: string): Promise<DiffFacts>;
}

/**
 * Diffs already taken, by workspace, base and head commit. A diff between two commit ids never
 * changes (the flags above leave nothing to the workspace's attributes), so the security step
 * and the run output reuse the reviewer's diff instead of running git four times more each.
 * Only the last `limit` diffs are kept: a diff can be large.
 */
export function createDiffCache(limit = 4): DiffCache {
  const kept = new Map<string, Promise<DiffFacts>>();
  const remember = (key: string, facts: Promise<DiffFacts>) => {
    kept.delete(key);
    kept.set(key, facts);
    // A failed diff is not kept: the next caller tries again.
    facts.catch(() => kept.get(key) === facts && kept.delete(key));
    while (kept.size > limit) kept.delete(kept.keys().next().value as string);
    return facts;
  };
  return {
    async diff(dir, baseSha, head) {
      if (head === undefined) {
        const facts = await diffFromBase(dir, baseSha);
        remember(key(dir, baseSha, facts.head), Promise.resolve(facts));
        return facts;
      }
      const k = key(dir, baseSha, head);
      return kept.get(k) ?? remember(k, diffFromBase(dir, baseSha, head));
    },
  };
}

function key(dir: string, base: string, head: string): string {
  return `${dir}\0${base}\0${head}`;
}
