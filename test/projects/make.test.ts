// The Makefile project: a small C library with `make test` (no stack preset fits; its
// .github/forge.yml names the test control) — the builder Edits C files and runs make.
import { describe, it } from "vitest";
import { useModelServer } from "../runner/chain-helpers.js";
import { checkChangeChain, checkReviewChain } from "./chain-checks.js";
import { CHAIN_TIMEOUT_MS, runProject, TICKETS } from "./project-kit.js";

const server = useModelServer();
const ticket = TICKETS.make;

describe("make: a C library built and tested with make", () => {
  it(
    "change chain: the builder adds str_ends_with, runs `make test` (allowed, 13 passed); PASS; the branch carries the change, not build/",
    async () => {
      const r = await runProject(server, ticket, { chain: "change" });
      try {
        checkChangeChain(server, r);
      } finally {
        await r.f.cleanup();
      }
    },
    CHAIN_TIMEOUT_MS,
  );

  it(
    "review chain of a branch: the reviewers read the change; PASS",
    async () => {
      const r = await runProject(server, ticket, { chain: "review" });
      try {
        checkReviewChain(server, r);
      } finally {
        await r.f.cleanup();
      }
    },
    CHAIN_TIMEOUT_MS,
  );
});
