// The Node project with a lockfile: `npm ci` installs a runtime dependency (ms) and the test
// runner (uvu) from the npm registry; no .github/forge.yml, so the node preset decides.
import { describe, it } from "vitest";
import { useModelServer } from "../runner/chain-helpers.js";
import { checkChangeChain, checkReviewChain } from "./chain-checks.js";
import { CHAIN_TIMEOUT_MS, runProject, TICKETS } from "./project-kit.js";

const server = useModelServer();
const ticket = TICKETS["node-lock"];

describe("node-lock: a Node project with package-lock.json, no forge.yml", () => {
  it(
    "change chain: the builder edits, runs `npm test` (allowed, 6 passed); PASS; the branch carries the change",
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
    "review chain of a branch: setup ran first, the reviewers see node_modules read-only; PASS",
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
