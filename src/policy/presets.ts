import type { ControlSpec, Stack } from "./forge-config-schema.js";
import { STACKS } from "./forge-config-schema.js";
import { pythonPreset } from "./python-preset.js";

/** What a stack usually needs: its install commands and its `test` control (R8.1). */
export interface StackPreset {
  stack: Stack;
  setup: string[];
  controls: Record<string, ControlSpec>;
}

/**
 * Root files a preset reads the text of (besides their names): the Python preset tells a
 * pytest project and a setuptools build from them. config-source.ts reads these, capped.
 */
export const PRESET_TEXT_FILES = [
  "pyproject.toml",
  "setup.cfg",
  "tox.ini",
  "requirements.txt",
  "requirements-dev.txt",
  "requirements-test.txt",
  "dev-requirements.txt",
  "test-requirements.txt",
] as const;

/** The largest preset text file read; a bigger one is treated as absent (only a hint). */
export const MAX_PRESET_TEXT_BYTES = 256 * 1024;

/** Files at the repository root that mark a stack. */
const MARKERS: Record<Stack, readonly string[]> = {
  node: ["package.json"],
  python: ["pyproject.toml", "requirements.txt", "setup.py"],
  go: ["go.mod"],
  rust: ["Cargo.toml"],
};

/**
 * The stacks whose marker files are among `rootFiles` (names of the entries at the repository
 * root), in the fixed order of STACKS so the result does not depend on listing order.
 */
export function detectStacks(rootFiles: readonly string[]): Stack[] {
  const names = new Set(rootFiles.map((f) => f.replace(/^\.\//, "")));
  return STACKS.filter((stack) => MARKERS[stack].some((marker) => names.has(marker)));
}

/**
 * The preset for one stack. `rootFiles` decides (a lock file picks the install command);
 * `rootTexts` holds the text of the PRESET_TEXT_FILES that exist, when the caller read them.
 */
export function stackPreset(
  stack: Stack,
  rootFiles: readonly string[],
  rootTexts: Readonly<Record<string, string>> = {},
): StackPreset {
  const has = (name: string) => rootFiles.includes(name);
  switch (stack) {
    case "node": {
      const install = has("pnpm-lock.yaml")
        ? "pnpm install --frozen-lockfile"
        : has("yarn.lock")
          ? "yarn install --frozen-lockfile"
          : has("package-lock.json") || has("npm-shrinkwrap.json")
            ? "npm ci"
            : "npm install";
      const test = has("pnpm-lock.yaml")
        ? "pnpm test"
        : has("yarn.lock")
          ? "yarn test"
          : "npm test";
      return { stack, setup: [install], controls: { test: { run: test } } };
    }
    case "python":
      return { stack, ...pythonPreset(rootFiles, rootTexts) };
    case "go":
      return { stack, setup: ["go mod download"], controls: { test: { run: "go test ./..." } } };
    case "rust":
      return { stack, setup: ["cargo fetch"], controls: { test: { run: "cargo test" } } };
  }
}
