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
