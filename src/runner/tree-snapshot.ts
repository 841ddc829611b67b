// R4.5 write detection: the runner snapshots the tree before and after every read-only step.
// A snapshot is HEAD, every ref, and the status of every path including untracked and
// ignored ones, so a write through an "allowed" command (`git diff --output=x`, a test runner
// writing a file) is seen even when no file-edit tool was used.
import { createHash } from "node:crypto";
import { lstat, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { git } from "./git.js";

export interface TreeSnapshot {
  head: string;
  refs: string;
  /** path → fingerprint of its status and content (untracked/modified/ignored entries). */
  entries: Map<string, string>;
}

export async function snapshotTree(dir: string): Promise<TreeSnapshot> {
  // Two git processes, side by side (each one costs tens of ms on a busy machine): every ref
  // with HEAD first (show-ref --head), and the status of every path.
  const [refList, status] = await Promise.all([
    git(["show-ref", "--head"], { cwd: dir, allowFailure: true }),
    git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching"], {
      cwd: dir,
    }),
  ]);
  const lines = refList.stdout.split("\n").filter(Boolean);
  const head = lines.find((l) => l.endsWith(" HEAD"))?.split(" ")[0] ?? "";
  if (!head) throw new Error(`cannot read HEAD in ${dir}: ${refList.stderr.trim()}`);
  const refs = lines.filter((l) => !l.endsWith(" HEAD")).join("\n");
  const entries = new Map<string, string>();
  const fields = status.stdout.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (!field) continue;
    const code = field.slice(0, 2);
    const path = field.slice(3);
    // Renames carry the original path in the next field.
    if (code.startsWith("R") || code.startsWith("C")) i++;
    entries.set(path, `${code}:${await fingerprint(join(dir, path))}`);
  }
  return { head, refs: sha256(refs), entries };
}

/**
 * The snapshot a read-only step starts from, of a clean tree: when anything but ignored files
 * differs from HEAD (a crashed attempt's leftovers), the tree is reset to HEAD and its untracked
 * files removed first — what `reset --hard HEAD` and `clean -fd` would do, without their two
 * git processes when there is nothing to do (the usual case).
 */
export async function cleanSnapshot(dir: string): Promise<TreeSnapshot> {
  const first = await snapshotTree(dir);
  if (isClean(first)) return first;
  await git(["reset", "--quiet", "--hard", "HEAD"], { cwd: dir });
  await git(["clean", "-fdq"], { cwd: dir });
  return snapshotTree(dir);
}

/** Nothing tracked differs from HEAD and nothing untracked is there, but ignored files. */
export function isClean(snapshot: TreeSnapshot): boolean {
  for (const fp of snapshot.entries.values()) if (!fp.startsWith("!!:")) return false;
  return true;
}

/** Paths that differ between two snapshots, plus a note when HEAD or refs moved. */
export function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changed = new Set<string>();
  for (const [path, fp] of after.entries) if (before.entries.get(path) !== fp) changed.add(path);
  for (const path of before.entries.keys()) if (!after.entries.has(path)) changed.add(path);
  const out = [...changed].sort();
  if (before.head !== after.head)
    out.push(`HEAD (${before.head.slice(0, 12)} → ${after.head.slice(0, 12)})`);
  else if (before.refs !== after.refs) out.push("refs (a branch or tag was created or moved)");
  return out;
}

/**
 * Put the tree back as it was: HEAD reset to the snapshot's commit, tracked files restored,
 * files that appeared removed. Ignored entries that appeared are removed by name.
 */
export async function restoreTree(dir: string, before: TreeSnapshot): Promise<void> {
  await git(["reset", "--quiet", "--hard", before.head], { cwd: dir });
  const after = await snapshotTree(dir);
  for (const path of after.entries.keys()) {
    if (!before.entries.has(path)) {
      await git(["clean", "-fdxq", "--", path], { cwd: dir, allowFailure: true });
    }
  }
}

/**
 * The write check of a read-only step: compare the tree with `before`; when it changed, put it
 * back and say which paths (the event and the FAIL reason name them, at most 50).
 */
export async function discardWrites(
  dir: string,
  before: TreeSnapshot,
  role: string,
): Promise<{ event: { type: string; data: Record<string, unknown> }; reason: string } | null> {
  const changed = diffSnapshots(before, await snapshotTree(dir));
  if (changed.length === 0) return null;
  const shown = changed.slice(0, 50);
  await restoreTree(dir, before);
  return {
    event: {
      type: "step.wrote",
      data: { role, files: shown, message: `step ${role} wrote to the tree: ${shown.join(", ")}` },
    },
    reason: `step ${role} wrote to the tree: ${shown.join(", ")} (changes discarded)`,
  };
}

async function fingerprint(path: string): Promise<string> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return `link:${await readlink(path)}`;
    if (st.isDirectory()) return `dir:${st.mtimeMs}`;
    // A FIFO (or socket, device) is never opened: reading a FIFO waits for a writer forever.
    if (!st.isFile()) return `special:${st.mode}:${st.ino}`;
    if (st.size > 8 * 1024 * 1024) return `big:${st.size}:${st.mtimeMs}`;
    return `file:${sha256(await readFile(path))}`;
  } catch {
    return "gone";
  }
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
