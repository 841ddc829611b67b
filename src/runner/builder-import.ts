// How the builder's work comes back to the host (R4.7). Inside the builder's box, git commits
// what the builder left uncommitted and writes a bundle of HEAD to stdout; the runner keeps it
// in a file it created. The host then only FETCHES from that bundle into agents.git (git parses
// it as data and checks every object), so nothing the builder wrote in its `.git` — config,
// `commondir`, attributes drivers, alternates, hooks — is ever read by the host's git. The
// imported tree is checked, becomes the agents' head on top of their base, and is re-applied
// onto the real base in real.git (agent-tree.ts).
import { join } from "node:path";
import type { Box } from "../boxes/types.js";
import { applyOntoBase, listTree, treeProblem } from "./agent-tree.js";
import { execInBoxToFile } from "./boxed-to-file.js";
import { git, gitLine, RUNNER_IDENTITY } from "./git.js";
import { AGENT_HEAD_REF, type RunBase, type RunRepos, setRef, WORK_REF } from "./run-repos.js";

/** A builder's work larger than this is refused, not imported. */
export const MAX_BUNDLE_BYTES = 512 * 1024 * 1024;

const COMMIT_AND_BUNDLE = [
  "set -eu",
  "base=$1",
  "git add -A",
  "if ! git diff --cached --quiet; then",
  '  git -c core.hooksPath=/dev/null commit --quiet --no-verify -m "forgechain: the builder\'s uncommitted work"',
  "fi",
  "head=$(git rev-parse --verify 'HEAD^{commit}')",
  'if [ "$head" = "$base" ]; then exit 0; fi',
  'exec git bundle create - HEAD --not "$base"',
].join("\n");

export interface ImportTarget {
  /** The builder's box: its workspace writable, agents.git read-only. */
  box: Box;
  ws: string;
  /** The scrubbed environment of the box (no model credential). */
  env: Record<string, string>;
  repos: RunRepos;
  base: RunBase;
  stepDir: string;
  runId: string;
  title: string;
  timeoutMs: number;
}

export type ImportResult =
  | { ok: true; agentHead: string; workHead: string; changed: boolean }
  | { ok: false; reason: string };

export async function importBuilderWork(t: ImportTarget): Promise<ImportResult> {
  const bundle = join(t.stepDir, `work-${Date.now()}.bundle`);
  const r = await execInBoxToFile(
    t.box,
    {
      command: "/bin/sh",
      args: ["-c", COMMIT_AND_BUNDLE, "forge-import", t.base.agentBase],
      cwd: t.ws,
      env: {
        ...t.env,
        ...RUNNER_IDENTITY,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_TERMINAL_PROMPT: "0",
      },
    },
    bundle,
    { timeoutMs: t.timeoutMs, maxBytes: MAX_BUNDLE_BYTES },
  );
  if (r.overLimit) {
    return fail(`the builder's work is over ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB`);
  }
  if (r.code !== 0 || r.timedOut || r.spawnError) {
    const why = r.spawnError ?? (r.timedOut ? "timed out" : r.stderr.trim().slice(-600));
    return fail(`the builder's work could not be read from its workspace: ${why}`);
  }
  let agentHead = t.base.agentBase;
  if (r.bytes > 0) {
    const fetched = await git(
      [
        "-c",
        "transfer.fsckObjects=true",
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        bundle,
        "+HEAD:refs/forge/import",
      ],
      { cwd: t.repos.agents, allowFailure: true },
    );
    if (fetched.exitCode !== 0) {
      return fail(`the builder's work failed git's checks: ${fetched.stderr.trim().slice(-600)}`);
    }
    const problem = treeProblem(await listTree(t.repos.agents, "refs/forge/import"));
    if (problem) return fail(problem);
    agentHead = await onAgentBase(t, "refs/forge/import");
  }
  // real.git reads agents.git's objects (run-repos.ts): the tree is there already.
  const [workHead] = await Promise.all([
    applyOntoBase(
      t.repos.real,
      agentHead,
      t.base.baseSha,
      t.base.hiddenEntries,
      `forge: ${firstLine(t.title)}\n\nThe builder's work of forgechain run ${t.runId}.`,
    ),
    setRef(t.repos.agents, AGENT_HEAD_REF, agentHead),
  ]);
  await setRef(t.repos.real, WORK_REF, workHead);
  return { ok: true, agentHead, workHead, changed: workHead !== t.base.baseSha };
}

/**
 * The imported tree as one commit on the agents' base, whatever history the builder made
 * (amended, rebased, an orphan): the reviewer's `git diff <base>..HEAD` shows the change.
 */
async function onAgentBase(t: ImportTarget, imported: string): Promise<string> {
  const [tree, baseTree] = (
    await gitLine(["rev-parse", `${imported}^{tree}`, `${t.base.agentBase}^{tree}`], {
      cwd: t.repos.agents,
    })
  ).split("\n");
  if (!tree || tree === baseTree) return t.base.agentBase;
  return gitLine(
    [
      "commit-tree",
      tree,
      "-p",
      t.base.agentBase,
      "-m",
      `forgechain: the builder's work (run ${t.runId})`,
    ],
    { cwd: t.repos.agents },
  );
}

function fail(reason: string): ImportResult {
  return { ok: false, reason };
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 72) || "change";
}
