// The allowlist of each phase: the stacks' registries (the host's, else the public ones), then
// the deployment's and the repository's hosts; the controls get nothing unless a layer says.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/cascade.js";
import { DEFAULT_DEPLOYMENT } from "../../src/policy/deployment.js";
import { egressAllowlists } from "../../src/policy/egress-policy.js";
import {
  type HostRegistries,
  managersOfCommand,
  registryEntry,
  registryEnv,
} from "../../src/policy/egress-registries.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";

const setupFor = (rootFiles: string[], host: HostRegistries = {}, yaml?: string) =>
  egressAllowlists(
    resolveConfig({ rootFiles, ...(yaml ? { repo: parseForgeConfig(yaml) } : {}) }),
    host,
  ).setup;

describe("the setup phase's registries, from the public defaults", () => {
  it("per stack and package manager", () => {
    expect(setupFor(["package.json", "package-lock.json"])).toEqual(["registry.npmjs.org"]);
    expect(setupFor(["package.json", "yarn.lock"])).toEqual([
      "registry.npmjs.org",
      "registry.yarnpkg.com",
    ]);
    expect(setupFor(["package.json", "pnpm-lock.yaml"])).toEqual(["registry.npmjs.org"]);
    expect(setupFor(["requirements.txt"])).toEqual(["pypi.org", "files.pythonhosted.org"]);
    expect(setupFor(["pyproject.toml", "uv.lock"])).toEqual(["pypi.org", "files.pythonhosted.org"]);
    expect(setupFor(["Cargo.toml"])).toEqual(["index.crates.io", "static.crates.io", "crates.io"]);
    expect(setupFor(["go.mod"])).toEqual(["proxy.golang.org", "sum.golang.org"]);
    expect(setupFor(["Makefile"], {}, "validate:\n  test: { run: make test }\n")).toEqual([]);
  });

  it("every stack found, not only the preset's", () => {
    expect(setupFor(["package.json", "go.mod"])).toEqual([
      "registry.npmjs.org",
      "proxy.golang.org",
      "sum.golang.org",
    ]);
  });

  it("the repository's hosts come after the registries, once each", () => {
    expect(
      setupFor(
        ["requirements.txt"],
        {},
        "network:\n  setup: [pypi.example.com:8443, PyPI.org]\n  controls: [api.test.example]\n",
      ),
    ).toEqual(["pypi.org", "files.pythonhosted.org", "pypi.example.com:8443"]);
  });
});

describe("the setup phase's registries, from the host's configuration", () => {
  it("a configured registry replaces the public one; extra ones are added", () => {
    const host: HostRegistries = {
      npm: { replace: ["https://npm.example.com/"], extra: ["https://npm.pkg.github.com/"] },
      pip: {
        replace: ["http://10.0.0.5:3141/root/pypi/+simple/"],
        extra: ["https://extra.example.com/simple"],
      },
      cargo: { replace: ["sparse+https://crates.mirror.example/index/"] },
      goproxy: { replace: ["https://goproxy.example.com"] },
    };
    expect(setupFor(["package.json"], host)).toEqual(["npm.example.com", "npm.pkg.github.com"]);
    // yarn 1 reads npm's registry when it has none of its own.
    expect(setupFor(["package.json", "yarn.lock"], host)).toEqual([
      "npm.example.com",
      "npm.pkg.github.com",
    ]);
    expect(setupFor(["requirements.txt"], host)).toEqual(["10.0.0.5:3141", "extra.example.com"]);
    expect(setupFor(["Cargo.toml"], host)).toEqual(["crates.mirror.example"]);
    expect(setupFor(["go.mod"], host)).toEqual(["goproxy.example.com", "sum.golang.org"]);
  });

  it("an empty answer is an answer: GOPROXY=direct and GOSUMDB=off reach no proxy", () => {
    expect(setupFor(["go.mod"], { goproxy: { replace: [] }, gosumdb: { replace: [] } })).toEqual(
      [],
    );
  });

  it("registry URLs become host entries; what needs no network or no proxy is dropped", () => {
    expect(registryEntry("https://registry.npmjs.org/")).toBe("registry.npmjs.org");
    expect(registryEntry("http://mirror.example:80/simple")).toBe("mirror.example:80");
    expect(registryEntry("http://mirror.example/simple")).toBe("mirror.example:80");
    expect(registryEntry("https://[::1]:8443/")).toBe("[::1]:8443");
    expect(registryEntry("registry+https://github.com/rust-lang/crates.io-index")).toBe(
      "github.com",
    );
    expect(registryEntry("sum.golang.google.cn")).toBe("sum.golang.google.cn");
    expect(registryEntry("file:///srv/wheels")).toBeNull();
    expect(registryEntry("ssh://git@example.com/index")).toBeNull();
    expect(registryEntry("not a url")).toBeNull();
  });

  it("the setup box's variables say the same registries", () => {
    expect(
      registryEnv({
        npm: { replace: ["https://npm.example.com/"], env: { npm_config_registry: "x" } },
        pip: { env: { PIP_INDEX_URL: "y" } },
      }),
    ).toEqual({ npm_config_registry: "x", PIP_INDEX_URL: "y" });
  });
});

describe("the controls and the agent", () => {
  it("controls get no registry: only the deployment's and the repository's hosts", () => {
    const config = resolveConfig({
      deployment: { ...structuredClone(DEFAULT_DEPLOYMENT), network: { controls: ["ci.corp"] } },
      rootFiles: ["package.json", "requirements.txt"],
      repo: parseForgeConfig("network:\n  controls: [api.test.example:8443]\n"),
    });
    expect(egressAllowlists(config, {})).toEqual({
      agent: [],
      setup: ["registry.npmjs.org", "pypi.org", "files.pythonhosted.org"],
      controls: ["ci.corp", "api.test.example:8443"],
    });
  });
});

describe("managersOfCommand", () => {
  it("names the managers a setup line runs", () => {
    const table: Array<[string, string[]]> = [
      ["npm ci", ["npm"]],
      ["yarn install --frozen-lockfile", ["yarn"]],
      ["cd web && pnpm install", ["pnpm"]],
      [".venv/bin/python -m pip install -r requirements.txt", ["pip"]],
      ["uv sync", ["pip"]],
      ["/usr/local/go/bin/go mod download", ["go"]],
      ["cargo fetch && npm ci", ["cargo", "npm"]],
      ["make deps", []],
      ["python3 -m venv .venv", []],
    ];
    for (const [line, managers] of table) expect(managersOfCommand(line), line).toEqual(managers);
  });
});
