// The Python project tested with pytest (Debian's python3-pytest: no package index is
// reachable here): pyproject.toml (setuptools), a package under src/, no .github/forge.yml,
// so the python preset's setup and test control must work offline on a stock Debian host.
import { describe, it } from "vitest";
import { useModelServer } from "../runner/chain-helpers.js";
import { checkChangeChain, checkReviewChain } from "./chain-checks.js";
import { CHAIN_TIMEOUT_MS, runProject, TICKETS } from "./project-kit.js";

const server = useModelServer();
const ticket = TICKETS["python-pytest"];

describe("python-pytest: pyproject + src/ package, pytest, the python preset", () => {
  it(
    "change chain: the builder adds sentence_count, runs `python3 -m pytest -v` (allowed, 17 passed); PASS; the branch carries the change",
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
    "review chain of a branch: the preset's setup ran first; PASS",
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
