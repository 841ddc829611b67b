import { isNegation, matchingFiles, normaliseRepoPath } from "./path-match.js";
import { DEFAULT_VERIFY_INPUTS } from "./verify-inputs.js";

export { isNegation, normaliseRepoPath };

/**
 * The files that steer forge itself or the CI that judges a change (R8.4). gitignore syntax:
 * a pattern without a slash matches at any depth (CODEOWNERS may live in the root, docs/ or
 * .github/).
 */
export const FORGE_STEERING_PATHS: readonly string[] = [
  ".github/workflows/**",
  ".github/actions/**",
  ".github/forge.yml",
  "CODEOWNERS",
  ".claude/**",
  ".claude/",
  "scripts/verify.sh",
  ".gitmodules",
];

/**
 * The deployment's protected paths (R8.4): a change touching one is never auto-merged. The
 * steering files above, and the files a verify script or a control executes (verify-inputs.ts):
 * verify and the controls run the builder's version of those, so their passing is no
 * independent evidence and a maintainer must look (R4.8). Both are in this one list so the
 * gate, which always adds it, protects them whatever a deployment or a repository says.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  ...FORGE_STEERING_PATHS,
  ...DEFAULT_VERIFY_INPUTS.filter((p) => !FORGE_STEERING_PATHS.includes(p)),
];

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
  const files = matchingFiles(changedFiles, patterns);
  return { touched: files.length > 0, files };
}
