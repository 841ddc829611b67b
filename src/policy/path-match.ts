import ignore from "ignore";

// The matching shared by every "does this change touch one of these paths?" question
// (protected paths, the files verify executes). Kept in its own file so the lists that use
// it can depend on it without depending on each other.

/** A negated gitignore pattern ("!x") would UN-match x; no list may contribute one. */
export function isNegation(pattern: string): boolean {
  return pattern.trimStart().startsWith("!");
}

/**
 * The changed files that match `patterns` (gitignore syntax, case-insensitive), in input
 * order. Fail-closed: a path that cannot be made relative to the repository (absolute,
 * escaping with `..`, empty, with a NUL or line break) always matches, and negated patterns
 * are dropped so a list can only ever match more.
 */
export function matchingFiles(
  changedFiles: readonly string[],
  patterns: readonly string[],
): string[] {
  const matcher = ignore({ ignorecase: true }).add(
    patterns.filter((p) => !isNegation(p) && p.trim() !== ""),
  );
  const files: string[] = [];
  for (const file of changedFiles) {
    const path = normaliseRepoPath(file);
    if (path === null || matcher.ignores(path)) files.push(file);
  }
  return files;
}

/** `a/./b//c` → `a/b/c`; null when the path is not inside the repository. */
export function normaliseRepoPath(file: string): string | null {
  let path = file.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
  if (path.startsWith("/") || /[\0\n\r]/.test(path)) return null;
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return null;
    out.push(part);
  }
  path = out.join("/");
  return path === "" ? null : path;
}
