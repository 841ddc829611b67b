import { matchingFiles } from "./path-match.js";

/**
 * The limit of "verify from base" (R4.8): the base's `scripts/verify.sh` and the `validate:`
 * controls are the base's, but the commands they call read files from the builder's tree —
 * `make test` runs the builder's Makefile, `npm test` the builder's package.json scripts, a
 * test runner the builder's config (which decides which tests run and what passes). A change
 * to one of these files is therefore named to the humans, and protected by default so the
 * gate needs a maintainer's `/forge approve` (protected-paths.ts adds this list).
 *
 * The rule for an entry: a file that chooses the command verify or a control ends up running,
 * or that a test runner or build tool loads as configuration or code before any test. Source
 * and test files are not on it: running them is what tests are for, and the reviewer reads
 * them in the diff. gitignore syntax; matched case-insensitively (so `Makefile` also covers
 * `makefile`); a pattern without a slash matches at any depth, because components run their
 * controls in their own folders. A repository protects more with `protected_paths:`.
 */
export const DEFAULT_VERIFY_INPUTS: readonly string[] = [
  // Task runners a verify script or a control calls by name: the recipe is the command.
  "Makefile",
  "GNUmakefile",
  "*.mk",
  "Justfile",
  ".justfile",
  "Taskfile.yml",
  "Taskfile.yaml",
  "Taskfile.dist.yml",
  "Taskfile.dist.yaml",
  "Rakefile",
  "*.rake",
  // The repository's own scripts: verify.sh lives here and typically calls its siblings.
  "scripts/**",
  // Node: `npm test` & co. run package.json scripts; .npmrc can set the script shell and
  // node options (`--require`), .yarnrc.yml a yarn binary (yarnPath), .pnpmfile.cjs hooks.
  "package.json",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  // Node test runners and the transforms they load: executable config that selects the tests,
  // the environment and what counts as a pass (vitest also reads vite.config).
  "jest.config.*",
  "vitest.config.*",
  "vitest.workspace.*",
  "vite.config.*",
  ".mocharc*",
  "karma.conf.*",
  "playwright.config.*",
  "cypress.config.*",
  "ava.config.*",
  "babel.config.*",
  ".babelrc*",
  // Python: pytest loads conftest.py at any depth and reads its options from these files;
  // tox and nox files are the commands; setup.py and pyproject.toml drive builds and installs.
  "pytest.ini",
  "conftest.py",
  "tox.ini",
  "noxfile.py",
  "setup.cfg",
  "setup.py",
  "pyproject.toml",
  // Rust: every `cargo test` runs build.rs; Cargo.toml declares build scripts and test
  // harnesses; .cargo/config can name a runner for test binaries, rust-toolchain a toolchain
  // directory. (Go has no such file: go.mod selects modules, and a toolchain it names is
  // checksum-verified, so it is not on the list.)
  "Cargo.toml",
  "build.rs",
  ".cargo/",
  "rust-toolchain",
  "rust-toolchain.toml",
];

/**
 * The changed files that verify or a control may execute, in input order. Same matching as
 * `touchesProtected` (gitignore syntax, case-insensitive, negations dropped) and as fail-closed:
 * a path that is not inside the repository is reported.
 */
export function verifyInputsTouched(
  changedFiles: readonly string[],
  patterns: readonly string[] = DEFAULT_VERIFY_INPUTS,
): string[] {
  return matchingFiles(changedFiles, patterns);
}

const MAX_LISTED = 20;

/**
 * The Markdown paragraph the run output and the sticky comment show when a change touches
 * verify inputs; null when `files` is empty. File names are the builder's: each is shown as
 * a code span it cannot close, on one line.
 */
export function verifyInputsNotice(
  files: readonly string[],
  approve = "/forge approve",
): string | null {
  if (files.length === 0) return null;
  const shown = files.slice(0, MAX_LISTED).map(codeSpan).join(", ");
  const more = files.length > MAX_LISTED ? ` and ${files.length - MAX_LISTED} more` : "";
  return (
    `Files that verify or the controls execute were changed: ${shown}${more}. ` +
    "The base's verify script and the controls ran the builder's version of them, so their " +
    `passing is not independent evidence; a maintainer must approve with ${codeSpan(approve)}.`
  );
}

/** Inline code that the text cannot close or break: control characters become `?`. */
export function codeSpan(text: string): string {
  const one = text.replace(/\p{Cc}/gu, "?").slice(0, 200);
  const longest = Math.max(0, ...(one.match(/`+/g) ?? []).map((m) => m.length));
  const ticks = "`".repeat(longest + 1);
  const pad = one.startsWith("`") || one.endsWith("`") ? " " : "";
  return `${ticks}${pad}${one}${pad}${ticks}`;
}
