/**
 * Runs once, in vitest's main process, before any test file: builds dist/ (the e2e tests run the
 * real `node bin/forge.js …`, which loads the bundles, not the TypeScript sources). Built here
 * and only here because test files run in parallel workers: one file rebuilding dist/ while
 * another's agent loads it would read a half-written bundle.
 */
import { buildDist } from "./build.js";

export default function setup(): void {
  buildDist();
  // Workers are forked after this and inherit the environment: ensureBuilt() then has nothing to do.
  process.env.FORGE_TEST_DIST_BUILT = "1";
}
