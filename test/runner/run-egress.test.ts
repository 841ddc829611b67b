// The runner's egress decisions (R4.6): each phase's list from the resolved config, the host's
// registries and the deployment's variables; the mode the journal records.
import { describe, expect, it } from "vitest";
import { parseForgeConfig, resolveConfig } from "../../src/policy/index.js";
import { createRunEgress } from "../../src/runner/run-egress.js";

const USER = { uid: 70000, gid: 70000, switched: true };

function config(yaml: string, rootFiles: string[]) {
  return resolveConfig({ repo: parseForgeConfig(yaml), rootFiles });
}

describe("createRunEgress", () => {
  it("setup: the stacks' registries, the repository's and the deployment's hosts; controls: only theirs", async () => {
    const e = createRunEgress({
      hostEnv: {
        HOME: "/nonexistent-home",
        FORGE_EGRESS_SETUP: "mirror.example.com",
        FORGE_EGRESS_CONTROLS: "api.example.com:8443",
      },
      boxKind: "bwrap",
      boxUser: USER,
      installRoot: "/nonexistent",
      config: config(
        "network:\n  setup: [pkgs.example.org]\n  controls: [staging.example.org]\nvalidate:\n  test: { run: npm test }\n",
        ["package.json"],
      ),
    });
    const rules = await e.phaseRules();
    expect(rules.setup).toEqual(["registry.npmjs.org", "pkgs.example.org", "mirror.example.com"]);
    expect(rules.controls).toEqual(["staging.example.org", "api.example.com:8443"]);
    expect(e.controlled).toBe(true);
    expect(e.modeEvent()).toEqual({ type: "egress.mode", data: { mode: "proxy" } });
  });

  it("no config: the deployment's hosts only; FORGE_EGRESS=host and other box kinds are not controlled, and say why", async () => {
    const base = { boxUser: USER, installRoot: "/nonexistent", config: null };
    const none = createRunEgress({ ...base, hostEnv: {}, boxKind: "bwrap" });
    expect(await none.phaseRules()).toMatchObject({ setup: [], controls: [] });
    const host = createRunEgress({ ...base, hostEnv: { FORGE_EGRESS: "host" }, boxKind: "bwrap" });
    expect(host.controlled).toBe(false);
    expect(host.modeEvent().data).toEqual({ mode: "host" });
    const container = createRunEgress({ ...base, hostEnv: {}, boxKind: "container" });
    expect(container.controlled).toBe(false);
    expect(container.modeEvent().data).toEqual({
      mode: "host",
      reason: "container boxes have no egress control yet",
    });
    expect(() =>
      createRunEgress({ ...base, hostEnv: { FORGE_EGRESS: "off" }, boxKind: "bwrap" }),
    ).toThrow(/FORGE_EGRESS="off" is not a network mode/);
  });
});
