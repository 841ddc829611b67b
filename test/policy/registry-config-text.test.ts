// The subsets of npmrc, pip.conf, cargo's TOML, go's env file and .yarnrc that name registries.
import { describe, expect, it } from "vitest";
import {
  parseEnvFile,
  parseIni,
  parseTomlStrings,
  parseYarnrc,
} from "../../src/policy/registry-config-text.js";

describe("registry config readers", () => {
  it("parseIni: npmrc keys, pip sections and continued values", () => {
    const npmrc = parseIni(
      '; comment\nregistry=https://npm.example.com/\n@acme:registry = "https://npm.pkg.github.com"\n//npm.example.com/:_authToken=npm_FAKE_not_a_token\n',
    );
    expect(npmrc[""]).toMatchObject({
      registry: "https://npm.example.com/",
      "@acme:registry": "https://npm.pkg.github.com",
    });
    const pip = parseIni(
      "[global]\nindex-url = https://pypi.example.com/simple\nextra-index-url =\n    https://a.example/simple\n    https://b.example/simple\n# x\n[install]\ntrusted-host = a.example\n",
    );
    expect(pip.global?.["index-url"]).toBe("https://pypi.example.com/simple");
    expect(pip.global?.["extra-index-url"]?.split(/\s+/).filter(Boolean)).toEqual([
      "https://a.example/simple",
      "https://b.example/simple",
    ]);
    expect(pip.install?.["trusted-host"]).toBe("a.example");
  });

  it("parseTomlStrings: tables, dotted and quoted keys, inline tables, comments", () => {
    const toml = parseTomlStrings(
      [
        "[source.crates-io]",
        'replace-with = "mirror" # the company mirror',
        "",
        '[source."mirror"]',
        "registry = 'sparse+https://crates.mirror.example/index/'",
        "[registries]",
        'acme = { index = "https://git.acme.example/index", token = "x" }',
        "[net]",
        "retry = 3",
        "git-fetch-with-cli = true",
        "[http]",
        'proxy = "http://user:pw@proxy#notacomment"',
      ].join("\n"),
    );
    expect(toml).toEqual({
      "source.crates-io.replace-with": "mirror",
      "source.mirror.registry": "sparse+https://crates.mirror.example/index/",
      "registries.acme.index": "https://git.acme.example/index",
      "registries.acme.token": "x",
      "http.proxy": "http://user:pw@proxy#notacomment",
    });
    expect(parseTomlStrings('source.crates-io.replace-with = "vendored"')).toEqual({
      "source.crates-io.replace-with": "vendored",
    });
  });

  it("parseEnvFile and parseYarnrc", () => {
    expect(parseEnvFile("GOPROXY=https://goproxy.example,direct\nGOSUMDB=off\n# x\n")).toEqual({
      GOPROXY: "https://goproxy.example,direct",
      GOSUMDB: "off",
    });
    expect(parseYarnrc('# yarn lockfile v1\nregistry "https://yarn.example.com"\n')).toEqual({
      registry: "https://yarn.example.com",
    });
  });
});
