// R4.5 write detection without git: the runner lists a read-only step's workspace — every
// path, `.git` included — before the step and after it, and compares. No git runs on the host
// in a workspace (run-repos.ts says why), no file is opened (a FIFO would hang a read), no link
// is followed. A write, a chmod, a rename or a new link changes a path's ctime, which no
// process can set back, so the fingerprint below sees every change through any tool.
import type { Dirent } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";

export interface TreeManifest {
  /** Path relative to the workspace → fingerprint. */
  entries: Map<string, string>;
}

/** More entries than this and the listing stops: the step FAILs as unreadable, never passes. */
const MAX_ENTRIES = 2_000_000;

export class ManifestError extends Error {
  override readonly name = "ManifestError";
}

export async function manifestOf(dir: string): Promise<TreeManifest> {
  const entries = new Map<string, string>();
  entries.set(".", await fingerprint(dir));
  const pending: string[] = [""];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    let listed: Dirent[];
    try {
      listed = await readdir(join(dir, rel), { withFileTypes: true });
    } catch (error) {
      entries.set(`${rel || "."}/`, `unreadable:${(error as NodeJS.ErrnoException).code}`);
      continue;
    }
    const prints = await Promise.all(
      listed.map(async (e) => {
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) pending.push(path);
        return [path, await fingerprint(join(dir, path))] as const;
      }),
    );
    for (const [path, print] of prints) entries.set(path, print);
    if (entries.size > MAX_ENTRIES) {
      throw new ManifestError(`the workspace holds more than ${MAX_ENTRIES} entries`);
    }
  }
  return { entries };
}

async function fingerprint(path: string): Promise<string> {
  try {
    const st = await lstat(path, { bigint: true });
    const stamp = `${st.mode}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    if (st.isSymbolicLink()) return `link:${await readlink(path)}:${stamp}`;
    if (st.isDirectory()) return `dir:${stamp}`;
    if (st.isFile()) return `file:${stamp}`;
    return `special:${stamp}`;
  } catch {
    return "gone";
  }
}

/** Paths that differ between two listings, sorted. */
export function changedPaths(before: TreeManifest, after: TreeManifest): string[] {
  const changed = new Set<string>();
  for (const [path, fp] of after.entries) if (before.entries.get(path) !== fp) changed.add(path);
  for (const path of before.entries.keys()) if (!after.entries.has(path)) changed.add(path);
  return [...changed].sort();
}

/**
 * The write check of a read-only step: the paths that changed (at most 50 named), as the
 * timeline event and the FAIL reason. Nothing needs putting back: the next step gets a
 * workspace of its own (step-workspace.ts), so the writes are discarded with this one.
 */
export async function detectWrites(
  dir: string,
  before: TreeManifest,
  role: string,
): Promise<{ event: { type: string; data: Record<string, unknown> }; reason: string } | null> {
  // A directory's own stamp changes when an entry in it appears or goes; name the entry.
  const changed = changedPaths(before, await manifestOf(dir)).filter(
    (p, _, all) => !all.some((q) => q !== p && q.startsWith(p === "." ? "" : `${p}/`)),
  );
  if (changed.length === 0) return null;
  const shown = changed.slice(0, 50);
  return {
    event: {
      type: "step.wrote",
      data: { role, files: shown, message: `step ${role} wrote to the tree: ${shown.join(", ")}` },
    },
    reason: `step ${role} wrote to the tree: ${shown.join(", ")} (changes discarded)`,
  };
}
