import type { ControlSpec, Stack } from "./forge-config-schema.js";
import { STACKS } from "./forge-config-schema.js";

/** What a stack usually needs: its install commands and its `test` control (R8.1). */
export interface StackPreset {
  stack: Stack;
  setup: string[];
  controls: Record<string, ControlSpec>;
}

/** Files at the repository root that mark a stack. */
const MARKERS: Record<Stack, readonly string[]> = {
  node: ["package.json"],
  python: ["pyproject.toml", "requirements.txt"],
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

/** The preset for one stack; the lock file decides the install command. */
export function stackPreset(stack: Stack, rootFiles: readonly string[]): StackPreset {
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
      if (has("uv.lock")) {
        return { stack, setup: ["uv sync"], controls: { test: { run: "uv run pytest" } } };
      }
      return {
        stack,
        setup: has("requirements.txt")
          ? ["python -m pip install -r requirements.txt"]
          : ["python -m pip install -e ."],
        controls: { test: { run: "python -m pytest" } },
      };
    case "go":
      return { stack, setup: ["go mod download"], controls: { test: { run: "go test ./..." } } };
    case "rust":
      return { stack, setup: ["cargo fetch"], controls: { test: { run: "cargo test" } } };
  }
}
