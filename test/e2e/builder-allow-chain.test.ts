/**
 * A repository's `builder.allow` in a real change chain (real claude, bwrap boxes, scripted
 * model): the builder's settings are frozen when the run starts, so the builder may run the
 * repository's command even after the config on the default branch drops it, and a command
 * no list names stays refused.
 */
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import type { Turn } from "../../src/scripted-model/server.js";
import { gitIn, writeFiles } from "../helpers/git-repo.js";
import { chainFixture, startChain, useModelServer, withRole } from "../runner/chain-helpers.js";

const server = useModelServer(demoScript());

const FORGE_YML = `# forgechain config of the demo repository.
setup: []
validate:
  test:
    run: make test
builder:
  allow: ["sh tools/check.sh *"]
`;

function builderTurns(): Turn[] {
  const demo = demoScript().routes?.find((r) => r.marker === "forgechain step: builder");
  return [
    {
      tools: [
        { name: "Bash", input: { command: "sh tools/check.sh --all", description: "checks" } },
        { name: "Bash", input: { command: "sh tools/other.sh", description: "not listed" } },
      ],
    },
    ...(demo?.turns ?? []),
  ];
}

describe("builder.allow in a running chain", () => {
  it("is frozen at the start: a later config edit does not take it back", async () => {
    server.setScript(withRole("builder", builderTurns()));
    server.reset();
    const f = await chainFixture({
      server,
      setupRepo: (repo) => {
        writeFiles(repo, {
          ".github/forge.yml": FORGE_YML,
          "tools/check.sh": "echo check-ok\n",
          "tools/other.sh": "echo other-ran\n",
        });
        gitIn(repo, "add", "-A");
        gitIn(repo, "commit", "-q", "-m", "builder.allow");
      },
    });
    try {
      expect(f.policy.config.builder.allow.map((c) => c.pattern)).toContain("sh tools/check.sh *");
      const run = await startChain(f);
      // The default branch drops the entry after the run started.
      writeFiles(f.repo, { ".github/forge.yml": FORGE_YML.replace(/builder:[\s\S]*$/, "") });
      gitIn(f.repo, "commit", "-q", "-am", "drop builder.allow");
      const final = await f.stack.engine.drive(run.id);
      const status = await f.stack.engine.status(run.id);
      expect(final.state, JSON.stringify(status.steps.map((s) => s.decision?.reasons))).toBe(
        "passed",
      );
      const result = (command: string) =>
        server.toolResults.find((r) => r.input?.command === command);
      expect(result("sh tools/check.sh --all")?.isError).toBe(false);
      expect(result("sh tools/check.sh --all")?.content).toContain("check-ok");
      expect(result("sh tools/other.sh")?.isError).toBe(true);
      expect(result("sh tools/other.sh")?.content).toMatch(
        /Permission to use Bash has been denied/,
      );
    } finally {
      await f.cleanup();
    }
  }, 180_000);
});
