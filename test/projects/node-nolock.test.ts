// The Node project without a lockfile: no dependencies, tests with Node's own runner
// (`node --test`), no .github/forge.yml: the node preset alone must make it work.
import { describe, it } from "vitest";
import { useModelServer } from "../runner/chain-helpers.js";
import { checkChangeChain, checkReviewChain } from "./chain-checks.js";
import { CHAIN_TIMEOUT_MS, runProject, TICKETS } from "./project-kit.js";

const server = useModelServer();
const ticket = TICKETS["node-nolock"];

describe("node-nolock: a Node project without a lockfile, no forge.yml", () => {
  it(
    "change chain: the builder fixes slugify, runs `node --test` (allowed, 5 pass); PASS; the branch carries the fix and no lockfile",
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
    "review chain of a branch: setup (npm install) ran first in a workspace it may write; PASS",
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
