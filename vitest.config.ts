import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // dist/ is built once, before any worker starts (see the file for why).
    globalSetup: ["test/harness/global-setup.ts"],
    // Tests drive real processes (the claude binary, bwrap, git): give them room,
    // but never use time as an assertion.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one file at a time on a 2-core
    // machine. Measured there, a single worker left the CPU 45 % idle (the files mostly wait on
    // agents, boxes and servers), so run at least two files at once.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
