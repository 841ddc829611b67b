// The setup phase behind its door (R4.6), as real chains: real bwrap boxes, the real npm, the
// npm registry this machine reaches. A project whose setup installs from the registry in a
// subdirectory the runner cannot tell is Node (`sh install.sh`): without the registry on its
// list, setup fails and says which host was refused and where to allow it; with
// `network.setup` naming the registry in .github/forge.yml, the same setup installs through the
// proxy and the chain passes.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { egressSummary } from "../../src/policy/index.js";
import { gitIn } from "../helpers/git-repo.js";
import { runScripted, useModelServer } from "./chain-helpers.js";

const server = useModelServer();

function webProject(network: string): (repo: string) => void {
  return (repo) => {
    mkdirSync(join(repo, "web"));
    writeFileSync(
      join(repo, "web", "package.json"),
      `${JSON.stringify({ name: "web", version: "1.0.0", private: true, dependencies: { "is-number": "7.0.0" } }, null, 2)}\n`,
    );
    writeFileSync(join(repo, "install.sh"), "cd web && npm install --no-audit --no-fund\n");
    writeFileSync(
      join(repo, ".github", "forge.yml"),
      `setup:\n  - sh install.sh\n${network}validate:\n  test:\n    run: make test\n`,
    );
    gitIn(repo, "add", "-A");
    gitIn(repo, "commit", "-qm", "a web part installed by a script");
  };
}

describe("the setup phase reaches the package registry only through its door", () => {
  it("not allowed: setup fails naming the refused registry and where to allow it", async () => {
    const r = await runScripted(server, demoScript(), { setupRepo: webProject("") });
    try {
      expect(r.final.state).toBe("failed");
      const setup = r.events.find((e) => e.type === "setup.finished");
      expect(setup?.data.ok).toBe(false);
      const denied = egressSummary(r.events).denied;
      expect(denied.map((d) => [d.phase, d.host, d.port])).toContainEqual([
        "setup",
        "registry.npmjs.org",
        443,
      ]);
      const reasons = JSON.stringify(r.events.filter((e) => e.type.startsWith("run.")));
      expect(reasons).toContain("the egress proxy refused registry.npmjs.org:443");
      expect(reasons).toContain("network.setup");
    } finally {
      await r.f.cleanup();
    }
  }, 240_000);

  it("allowed by network.setup: the same setup installs through the proxy and the chain passes", async () => {
    const r = await runScripted(server, demoScript(), {
      setupRepo: webProject("network:\n  setup:\n    - registry.npmjs.org\n"),
    });
    try {
      const setup = r.events.find((e) => e.type === "setup.finished");
      expect(setup?.data.ok, JSON.stringify(setup?.data)).toBe(true);
      expect(egressSummary(r.events).mode).toEqual({ mode: "proxy" });
      expect(egressSummary(r.events).denied.filter((d) => d.phase === "setup")).toEqual([]);
      const installed = join(r.f.forgeHome, "work", r.final.id, "setup", "ws", "web");
      expect(existsSync(join(installed, "node_modules", "is-number", "package.json"))).toBe(true);
      expect(r.final.state).toBe("passed");
    } finally {
      await r.f.cleanup();
    }
  }, 240_000);
});
