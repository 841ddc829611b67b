// Path normalisation before matching (R4.2): relative paths are resolved against the hook
// input's cwd and `.`/`..` are collapsed, so `a/../.env` and `./x/../../proc/self/environ`
// are matched as what they name. A path holding a control character is refused outright:
// matching such a path is guesswork (the tool may strip or keep the character).
import { posix } from "node:path";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function hasControlChars(text: string): boolean {
  return CONTROL.test(text);
}

/** Absolute, normalised form of `path` (`~` → home; relative → under `cwd`). */
export function normalisePath(path: string, cwd: string, home: string | undefined): string {
  let p = path;
  if (home !== undefined && (p === "~" || p.startsWith("~/"))) p = home + p.slice(1);
  return posix.resolve(cwd, p);
}

/** The segments of an absolute normalised path (`/a/b` → `["a", "b"]`). */
export function segmentsOf(absolute: string): string[] {
  return absolute.split("/").filter((s) => s.length > 0);
}

/** Resolves symlinks with realpath; throws when the path does not exist. */
export type RealpathFn = (path: string) => string;

/**
 * `abs` with every symlink in its longest existing prefix resolved (a committed symlink such
 * as `docs/x -> /proc/self/environ` must be judged by where it points). Paths under /dev are
 * left alone: `/dev/stdin` and `/dev/stderr` point into /proc/self/fd by design.
 */
export function resolveExisting(abs: string, realpath: RealpathFn): string {
  if (abs === "/dev" || abs.startsWith("/dev/")) return abs;
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = realpath(head);
      return tail.length > 0 ? posix.join(real, ...tail.reverse()) : real;
    } catch {
      if (head === "/") return abs;
      tail.push(posix.basename(head));
      head = posix.dirname(head);
    }
  }
}
