import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RunRecord } from "../chain/types.js";
import { git, runRepos } from "../runner/index.js";

/**
 * The files a run's change touches, from the runner's own repository (R5.2: the diff is
 * computed by us, from the measured base, never taken from an agent or a payload). Renames
 * count on both sides (`--no-renames`). Null when the diff cannot be read: the gate then stays
 * closed.
 */
export async function changedFiles(
  forgeHome: string,
  run: RunRecord,
  headSha: string,
): Promise<string[] | null> {
  const { real } = runRepos(join(forgeHome, "work", run.id));
  if (!run.baseSha || !existsSync(join(real, "HEAD"))) return null;
  const r = await git(["diff", "--name-only", "--no-renames", "-z", run.baseSha, headSha, "--"], {
    cwd: real,
    allowFailure: true,
  });
  if (r.exitCode !== 0) return null;
  return r.stdout.split("\0").filter((f) => f !== "");
}
