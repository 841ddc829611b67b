// The Python project tested with unittest: pyproject.toml (setuptools), a package under src/,
// and a one-file .github/forge.yml that installs it into the project's virtual environment
// offline (no package index is reachable) and tests with `python -m unittest`.
import { describe, it } from "vitest";
import { useModelServer } from "../runner/chain-helpers.js";
import { checkChangeChain, checkReviewChain } from "./chain-checks.js";
import { CHAIN_TIMEOUT_MS, runProject, TICKETS } from "./project-kit.js";

const server = useModelServer();
const ticket = TICKETS["python-unittest"];

describe("python-unittest: pyproject + src/ package, installed into .venv, unittest", () => {
  it(
    "change chain: the builder adds Kelvin conversions, runs the venv's unittest (allowed, new test ok); PASS; the branch carries the change",
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
    "review chain of a branch: the venv was made first and the reviewers see it read-only; PASS",
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
