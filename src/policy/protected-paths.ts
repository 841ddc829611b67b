import ignore from "ignore";

/**
 * The deployment's protected paths (R8.4): the files that steer forge itself or the CI that
 * judges a change. A change touching one is never auto-merged. gitignore syntax: a pattern
 * without a slash matches at any depth (CODEOWNERS may live in the root, docs/ or .github/).
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  ".github/workflows/**",
  ".github/actions/**",
  ".github/forge.yml",
  "CODEOWNERS",
  ".claude/**",
  ".claude/",
  "scripts/verify.sh",
  ".gitmodules",
];

/** A negated gitignore pattern ("!x") would UN-protect x; no layer may contribute one. */
export function isNegation(pattern: string): boolean {
  return pattern.trimStart().startsWith("!");
}

export interface ProtectedTouch {
  touched: boolean;
  /** The changed files that matched, in input order. */
  files: string[];
}

/**
 * THE function the merge gate uses (R8.4, R9.4): does this change touch a protected path?
 * `changedFiles` are repository-relative paths as git prints them — pass both sides of a
 * rename. Fail-closed: a path that cannot be made relative to the repository (absolute,
 * escaping with `..`, empty) counts as touched, and negated patterns are dropped so a list
 * can only ever protect more. Matching ignores case, so a case-insensitive checkout cannot
 * slip `codeowners` past `CODEOWNERS`.
 */
export function touchesProtected(
  changedFiles: readonly string[],
  patterns: readonly string[],
): ProtectedTouch {
  const matcher = ignore({ ignorecase: true }).add(
    patterns.filter((p) => !isNegation(p) && p.trim() !== ""),
  );
  const files: string[] = [];
  for (const file of changedFiles) {
    const path = normaliseRepoPath(file);
    if (path === null || matcher.ignores(path)) files.push(file);
  }
  return { touched: files.length > 0, files };
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
