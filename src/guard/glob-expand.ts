// Expands an unquoted glob against the real file system, the way bash would at this moment
// (no dotglob: a wildcard at the start of a segment skips dot names). Used for segments that
// name nothing by themselves (`cat *`, `cat /*/self/environ`): what they would read is exactly
// the directory listing. Bounded, because this runs synchronously inside the hook.
import { readdirSync } from "node:fs";
import { posix } from "node:path";
import { type GlobElement, isLiteralOnly, segmentRegExp } from "./glob-segment.js";

export interface DirReader {
  /** Entry names of `dir`; throws when it cannot be read (treated as no matches). */
  readdir(dir: string): readonly string[];
}

export const realDirReader: DirReader = {
  readdir: (dir) => readdirSync(dir),
};

/** Directory entries examined before the guard gives up and refuses. */
export const MAX_GLOB_ENTRIES = 5_000;

export class GlobTooBroadError extends Error {}

/**
 * Absolute paths the glob matches now. `segments` are the pattern's segments (`""` for an
 * empty one, e.g. after a leading `/`); `base` is `/` for an absolute pattern, else the cwd.
 */
export function expandOnDisk(
  segments: readonly (readonly GlobElement[])[],
  base: string,
  reader: DirReader,
): string[] {
  let current = [base];
  let examined = 0;
  for (const seg of segments) {
    if (isLiteralOnly(seg)) {
      const name = seg.map((e) => (e.kind === "lit" ? e.ch : "")).join("");
      if (name === "") continue;
      current = current.map((d) => posix.join(d, name));
      continue;
    }
    const re = segmentRegExp(seg);
    const next: string[] = [];
    for (const dir of current) {
      let names: readonly string[];
      try {
        names = reader.readdir(dir);
      } catch {
        continue; // bash: an unreadable or missing directory simply matches nothing
      }
      examined += names.length;
      if (examined > MAX_GLOB_ENTRIES) {
        throw new GlobTooBroadError("the glob matches too many files to check");
      }
      for (const n of names) if (re.test(n)) next.push(posix.join(dir, n));
    }
    current = next;
  }
  return current;
}
