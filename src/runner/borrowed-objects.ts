// git reads objects from every directory listed in `.git/objects/info/alternates` (and
// `http-alternates`). The builder can write that file in its workspace (it must be able to write
// objects there), and the runner's git — which diffs, scans and pushes on the host — would then
// read objects from another repository on this machine and push those a crafted commit points
// at. A workspace that borrows objects is refused before the runner's git reads it for the next
// step, and is never pushed.
import { lstat } from "node:fs/promises";
import { join } from "node:path";

const FILES = ["alternates", "http-alternates"] as const;

/** The borrowing file the workspace has (`.git/objects/info/alternates`), or null. */
export async function borrowedObjects(repo: string): Promise<string | null> {
  for (const name of FILES) {
    // lstat: a link or anything else at that name counts (git would follow a link).
    const there = await lstat(join(repo, ".git", "objects", "info", name)).then(
      () => true,
      () => false,
    );
    if (there) return `.git/objects/info/${name}`;
  }
  return null;
}

export function borrowedReason(file: string): string {
  return `the workspace borrows git objects from elsewhere (${file}): refused, the runner's git neither reads nor pushes it`;
}
