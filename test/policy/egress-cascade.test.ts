// `network:` through the cascade: the deployment's hosts stay, a repository adds its own, and
// nothing a repository writes removes one or opens the agent's network.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/cascade.js";
import { formatResolvedConfig } from "../../src/policy/config-report.js";
import { DEFAULT_DEPLOYMENT, type DeploymentConfig } from "../../src/policy/deployment.js";
import { egressAllowlists } from "../../src/policy/egress-policy.js";
import { explain } from "../../src/policy/explain.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";
import { ConfigError, formatIssue } from "../../src/policy/issues.js";

const deployment: DeploymentConfig = {
  ...structuredClone(DEFAULT_DEPLOYMENT),
  network: { setup: ["proxy.corp.example:3128"], controls: ["*.internal.example"] },
};
const resolve = (yaml: string | null, rootFiles: string[] = ["go.mod"]) =>
  resolveConfig({ deployment, rootFiles, repo: yaml === null ? null : parseForgeConfig(yaml) });
const refusals = (yaml: string) => {
  try {
    parseForgeConfig(yaml);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map(formatIssue);
    throw e;
  }
  throw new Error("accepted");
};

describe("network: additive, deployment first", () => {
  it("keeps the deployment's hosts and adds the repository's after them", () => {
    const config = resolve(
      "network:\n  setup: [pypi.example.com:8443, PROXY.corp.example:3128]\n  controls: [api.test.example]\n",
    );
    expect(config.network.setup).toEqual([
      { entry: "proxy.corp.example:3128", origin: "deployment" },
      { entry: "pypi.example.com:8443", origin: "repo" },
    ]);
    expect(config.network.controls).toEqual([
      { entry: "*.internal.example", origin: "deployment" },
      { entry: "api.test.example", origin: "repo" },
    ]);
  });

  it("an empty list, or no network key, removes nothing", () => {
    for (const yaml of [null, "network:\n  setup: []\n  controls: []\n", "network: {}\n"]) {
      const config = resolve(yaml);
      expect(
        config.network.setup.map((h) => h.entry),
        String(yaml),
      ).toEqual(["proxy.corp.example:3128"]);
      expect(
        config.network.controls.map((h) => h.entry),
        String(yaml),
      ).toEqual(["*.internal.example"]);
    }
  });

  it("refuses a key or an entry that would remove a host, or open the agent's network", () => {
    expect(
      refusals(
        "network:\n  setup:\n    - '!proxy.corp.example:3128'\n  exclude: [registry.npmjs.org]\n  agent: [evil.example]\n  builder: [evil.example]\n",
      ),
    ).toEqual([
      '.github/forge.yml:3:7: network.setup[0]: "!proxy.corp.example:3128" would remove a host; network lists are additive, so a repository can add hosts, never remove one (expected a host[:port] such as registry.npmjs.org, *.pythonhosted.org, pypi.example.com:8443 or [::1]:9000; port 443 when absent) — delete this entry',
      '.github/forge.yml:4:3: unknown key "exclude" — network lists are additive: a repository adds hosts for setup and the controls, and can never remove the deployment\'s or the package registries — delete this key; list the hosts to add under network.setup or network.controls',
      '.github/forge.yml:5:3: unknown key "agent" — the agent steps reach their model endpoint only; a repository cannot open more hosts for them — delete this key; list hosts for the setup phase under network.setup, for the controls under network.controls',
      '.github/forge.yml:6:3: unknown key "builder" — the agent steps reach their model endpoint only; a repository cannot open more hosts for them — delete this key; list hosts for the setup phase under network.setup, for the controls under network.controls',
    ]);
    // A typo elsewhere still gets its spelling hint, not the network rule.
    expect(refusals("network:\n  setpu: [pypi.org]\n")).toEqual([
      '.github/forge.yml:2:3: unknown key "setpu" — did you mean "setup"?',
    ]);
    expect(refusals("network: host\n")[0]).toMatch(
      /^\.github\/forge\.yml:1:10: network: expected a block of keys, got the string "host"/,
    );
  });

  it("the agent's list stays empty whatever the layers say", () => {
    const config = resolve("network:\n  setup: [a.example]\n  controls: [b.example]\n");
    expect(egressAllowlists(config, {}).agent).toEqual([]);
  });

  it("explain shows every layer of an additive network key", () => {
    const config = resolve("network:\n  setup: [pypi.example.com:8443]\n");
    const e = explain(config, "network.setup");
    expect(e.origin).toBe("additive");
    expect(e.layers).toEqual([
      { origin: "deployment", value: ["proxy.corp.example:3128"] },
      { origin: "repo", value: ["pypi.example.com:8443"] },
    ]);
    expect(e.note).toMatch(/a repository cannot remove one/);
    expect(explain(config, "network.registries").value).toEqual([
      { manager: "go", origin: "preset:go" },
    ]);
  });

  it("forge config check shows what each phase may reach", () => {
    const config = resolve("network:\n  controls: [api.test.example]\n", ["package.json"]);
    const text = formatResolvedConfig(
      config,
      { roles: {}, revision: 1, digest: "0".repeat(64) } as never,
      { file: ".github/forge.yml", from: "worktree", ref: null, found: true, note: "" },
      [],
    );
    expect(text).toContain(
      "network (through the egress proxy; the agent steps reach their model endpoint only):\n" +
        "  setup: the package registries of npm [preset:node] (the host's, else the public ones)\n" +
        "    proxy.corp.example:3128  [deployment]\n" +
        "  controls and verify:\n" +
        "    *.internal.example  [deployment]\n" +
        "    api.test.example  [repo]\n",
    );
  });
});

describe("network.registries: which managers' registries setup reaches", () => {
  it("every detected stack, and every manager a setup command runs, with its layer", () => {
    const config = resolveConfig({
      rootFiles: ["go.mod"],
      repo: parseForgeConfig(
        "components:\n  web:\n    setup: [npm ci]\n  tools:\n    setup: ['cd x && .venv/bin/python -m pip install -r r.txt']\n",
      ),
    });
    expect(config.network.registries).toEqual([
      { manager: "go", origin: "preset:go" },
      { manager: "npm", origin: "component:web" },
      { manager: "pip", origin: "component:tools" },
    ]);
  });

  it("the preset's yarn or pnpm install adds that manager", () => {
    const yarn = resolveConfig({ rootFiles: ["package.json", "yarn.lock"] });
    expect(yarn.network.registries.map((r) => r.manager)).toEqual(["npm", "yarn"]);
    const pnpm = resolveConfig({ rootFiles: ["package.json", "pnpm-lock.yaml"] });
    expect(pnpm.network.registries.map((r) => r.manager)).toEqual(["npm", "pnpm"]);
  });
});
