// Tried as a new user would: `forge run` (the real CLI bundle in a child process) on ordinary
// projects — Node without a forge.yml, Python with a one-file forge.yml — on a host whose PATH
// is a fresh Debian's. The CLI checks the endpoint, proves the box with the project's own setup
// and controls, and runs the chain; the scripted builder runs the project's real tests.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { forge, sandbox } from "../cli/cli-kit.js";
import { ensureBuilt } from "../harness/build.js";
import { gitIn } from "../helpers/git-repo.js";
import { CHAIN_TIMEOUT_MS, makeProjectRepo, projectScript, TICKETS } from "./project-kit.js";

let server: ModelServer;
beforeAll(async () => {
  ensureBuilt();
  server = await startModelServer({ turns: [] });
});
afterAll(async () => server?.close());

// A fresh Debian/Ubuntu host: the system's toolchains, no version manager under a home.
const FRESH_PATH = "/usr/local/bin:/usr/bin:/bin";

describe.each(["node-nolock", "python-unittest", "node-lock"] as const)(
  "forge run on the %s project",
  (project) => {
    it(
      "proves the box with the project's own setup and tests, then the chain PASSes and pushes",
      async () => {
        const ticket = TICKETS[project];
        const s = sandbox(`forge-run-${project}-`);
        try {
          const repo = join(s.dir, "repo");
          makeProjectRepo(ticket, repo);
          server.setScript(projectScript(ticket, "change"));
          server.reset();
          const r = await forge(
            ["run", "--repo", repo, "--task", `${ticket.title}\n\n${ticket.body}`],
            {
              ...s.env,
              PATH: FRESH_PATH,
              ANTHROPIC_BASE_URL: server.url,
              ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
            },
            CHAIN_TIMEOUT_MS,
          );
          const out = `${r.stdout}\n${r.stderr}`;
          expect(r.code, out).toBe(0);
          // The proof ran what a run runs: the project's setup and its test control.
          expect(out).toMatch(/ok\s+setup: /);
          expect(out).toMatch(/ok\s+validate: test/);
          // The builder's own test command ran and passed.
          const tests = server.toolResults.find((t) => t.input?.command === ticket.testCommand);
          expect(tests?.isError, String(tests?.content)).toBe(false);
          const branch = gitIn(repo, "branch", "--list", "--format=%(refname:short)", "forge/*");
          expect(branch).toMatch(/^forge\//);
          const changed = gitIn(repo, "diff", "--name-only", `main...${branch}`);
          for (const c of ticket.changes) expect(changed).toContain(c.path);
        } finally {
          s.cleanup();
        }
      },
      CHAIN_TIMEOUT_MS + 60_000,
    );
  },
);
