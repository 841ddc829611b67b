// FORGE_EGRESS, FORGE_EGRESS_SETUP and FORGE_EGRESS_CONTROLS: the deployment's word on the
// network, the only place the proxy can be switched off.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/cascade.js";
import { DEFAULT_DEPLOYMENT } from "../../src/policy/deployment.js";
import {
  deploymentEgress,
  EgressConfigError,
  egressMode,
  withDeploymentEgress,
} from "../../src/policy/egress-env.js";
import { egressAllowlists } from "../../src/policy/egress-policy.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";

describe("FORGE_EGRESS", () => {
  it("is the proxy unless the deployment says host", () => {
    expect(egressMode({})).toBe("proxy");
    expect(egressMode({ FORGE_EGRESS: "" })).toBe("proxy");
    expect(egressMode({ FORGE_EGRESS: "proxy" })).toBe("proxy");
    expect(egressMode({ FORGE_EGRESS: "host" })).toBe("host");
  });

  it("refuses any other value, naming it and the two choices", () => {
    for (const value of ["off", "HOST", "none", "1"]) {
      expect(() => egressMode({ FORGE_EGRESS: value })).toThrow(EgressConfigError);
    }
    expect(() => egressMode({ FORGE_EGRESS: "off" })).toThrow(
      'FORGE_EGRESS="off" is not a network mode — unset it (every box goes through the egress proxy), or set FORGE_EGRESS=host to give every box the host network',
    );
  });

  it("a repository has no key that reaches it", () => {
    expect(() => parseForgeConfig("network:\n  mode: host\n")).toThrow(/unknown key "mode"/);
    expect(() => parseForgeConfig("egress: host\n")).toThrow(/unknown key "egress"/);
  });
});

describe("FORGE_EGRESS_SETUP and FORGE_EGRESS_CONTROLS", () => {
  it("are comma-separated host entries, canonical and once each", () => {
    expect(
      deploymentEgress({
        FORGE_EGRESS_SETUP: " Proxy.corp.example:3128, *.corp.example ,,proxy.corp.example:3128",
        FORGE_EGRESS_CONTROLS: "[::1]:9000",
      }),
    ).toEqual({
      setup: ["proxy.corp.example:3128", "*.corp.example"],
      controls: ["[::1]:9000"],
    });
    expect(deploymentEgress({})).toEqual({ setup: [], controls: [] });
  });

  it("an entry that is not a host stops with the variable, the entry and the fix", () => {
    expect(() =>
      deploymentEgress({ FORGE_EGRESS_SETUP: "pypi.org,https://mirror/simple" }),
    ).toThrow(
      'FORGE_EGRESS_SETUP: "https://mirror/simple" is a URL; the proxy matches a host and port, not a scheme or a path — write the host only: mirror',
    );
    expect(() => deploymentEgress({ FORGE_EGRESS_CONTROLS: "*" })).toThrow(
      "FORGE_EGRESS_CONTROLS: `*` alone would let the box reach every host — name the hosts, or a suffix such as *.example.com",
    );
  });

  it("are the deployment layer: every repository keeps them and adds its own", () => {
    const deployment = withDeploymentEgress(DEFAULT_DEPLOYMENT, {
      FORGE_EGRESS_SETUP: "proxy.corp.example:3128",
      FORGE_EGRESS_CONTROLS: "ci.corp.example",
    });
    const config = resolveConfig({
      deployment,
      rootFiles: ["go.mod"],
      repo: parseForgeConfig("network:\n  controls: [api.test.example]\n"),
    });
    expect(egressAllowlists(config, {})).toEqual({
      agent: [],
      setup: ["proxy.golang.org", "sum.golang.org", "proxy.corp.example:3128"],
      controls: ["ci.corp.example", "api.test.example"],
    });
  });
});
