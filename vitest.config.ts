import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests drive real processes (the claude binary, bwrap, git): give them room,
    // but never use time as an assertion.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
