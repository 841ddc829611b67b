// Each step's workspace is laid out fresh (R4.7): an empty directory the runner made, filled by
// git running INSIDE a box, from one of the runner's bare repositories bound read-only. The
// host's git never runs in a workspace — not before a step (nothing there is the host's to
// trust once a box could write it) and not after it. Nothing a step plants in its `.git` reaches
// another step: the next one gets a new directory and a new `.git`.
import { mkdir, rm } from "node:fs/promises";
import { execInBox, tail } from "../boxes/box-exec.js";
import type { Box } from "../boxes/types.js";

export interface LayoutBoxes {
  /** A box that writes `dir` only, sees `readOnly` read-only, and has no network. */
  box(dir: string, home: string, readOnly: string[]): Box;
  /** PATH and the like for git in that box. */
  env: Record<string, string>;
  /** Hands a directory the runner made to the box's user (box-user.ts); none → nothing. */
  handToBox?: (dir: string) => Promise<void>;
  timeoutMs?: number;
}

export interface LayoutTarget {
  /** The runner's bare repository to lay the workspace out from. */
  source: string;
  commit: string;
  branch: string;
  dir: string;
  /** A scratch HOME for the layout box. */
  home: string;
  /**
   * "shared": the workspace borrows the source's objects (agents.git holds only what agents
   * may see, and is bound read-only). "shallow": a copy of the commit alone, without history
   * (a checkout of the real repository for the controls: they must not reach its history).
   */
  objects: "shared" | "shallow";
  /** More repositories the source reads objects from (real.git borrows agents.git's). */
  borrowsFrom?: string[];
}

// Positional parameters only: nothing of a path, branch or commit is ever part of the script.
const LAY_OUT = [
  "set -eu",
  "dir=$1; source=$2; commit=$3; branch=$4; objects=$5",
  'git -c init.defaultBranch=forge init --quiet "$dir"',
  'if [ "$objects" = shared ]; then',
  '  printf "%s\\n" "$source/objects" > "$dir/.git/objects/info/alternates"',
  "else",
  // The source is the runner's, owned by another user than the box's, and read by an
  // upload-pack of its own, which takes no `-c`: a config in the layout's HOME tells git that
  // this one path is safe, and lets it send a commit by its id.
  '  export GIT_CONFIG_GLOBAL="$HOME/layout.gitconfig"',
  '  git config --file "$GIT_CONFIG_GLOBAL" safe.directory "$source"',
  '  git config --file "$GIT_CONFIG_GLOBAL" uploadpack.allowAnySHA1InWant true',
  '  git -C "$dir" fetch --quiet --no-tags --depth 1 "file://$source" "$commit"',
  "fi",
  'git -C "$dir" checkout --quiet --force -B "$branch" "$commit"',
].join("\n");

const ADVANCE = [
  "set -eu",
  "dir=$1; commit=$2; branch=$3",
  'git -C "$dir" checkout --quiet --force -B "$branch" "$commit"',
].join("\n");

export class WorkspaceLayoutError extends Error {
  override readonly name = "WorkspaceLayoutError";
}

export async function layOutWorkspace(b: LayoutBoxes, t: LayoutTarget): Promise<void> {
  await rm(t.dir, { recursive: true, force: true });
  await mkdir(t.dir, { recursive: true, mode: 0o755 });
  await mkdir(t.home, { recursive: true, mode: 0o700 });
  await b.handToBox?.(t.dir);
  await b.handToBox?.(t.home);
  await runGit(b, t.dir, t.home, [t.source, ...(t.borrowsFrom ?? [])], LAY_OUT, [
    t.dir,
    t.source,
    t.commit,
    t.branch,
    t.objects,
  ]);
}

/**
 * Moves a laid-out workspace that no box could write (a read-only step's, laid out before
 * the builder's work existed for a warm start) to `commit` of its shared source.
 */
export async function advanceWorkspace(
  b: LayoutBoxes,
  t: Pick<LayoutTarget, "source" | "commit" | "branch" | "dir" | "home">,
): Promise<void> {
  await runGit(b, t.dir, t.home, [t.source], ADVANCE, [t.dir, t.commit, t.branch]);
}

async function runGit(
  b: LayoutBoxes,
  dir: string,
  home: string,
  readOnly: string[],
  script: string,
  args: string[],
): Promise<void> {
  const r = await execInBox(
    b.box(dir, home, readOnly),
    {
      command: "/bin/sh",
      args: ["-c", script, "forge-workspace", ...args],
      cwd: dir,
      env: {
        ...b.env,
        HOME: home,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_TERMINAL_PROMPT: "0",
      },
    },
    { timeoutMs: b.timeoutMs ?? 10 * 60_000 },
  );
  if (r.code !== 0 || r.timedOut || r.spawnError) {
    const why = r.spawnError ?? (r.timedOut ? "timed out" : tail(`${r.stderr}\n${r.stdout}`, 600));
    throw new WorkspaceLayoutError(`the step's workspace could not be laid out: ${why}`);
  }
}
