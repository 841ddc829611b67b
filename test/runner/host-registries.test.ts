// What the host's own npm, yarn, pip, cargo and go configuration says about registries, read
// from real files in a throw-away HOME; never a credential, never a repository's file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { egressAllowlists } from "../../src/policy/egress-policy.js";
import { registryEnv } from "../../src/policy/egress-registries.js";
import { resolveConfig } from "../../src/policy/index.js";
import { readHostRegistries } from "../../src/runner/host-registries.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A HOME with these files, and an environment that points nothing at the machine's own. */
function home(files: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "forge-host-registries-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return {
    HOME: dir,
    npm_config_globalconfig: join(dir, "no-global-npmrc"),
    XDG_CONFIG_DIRS: join(dir, "no-xdg"),
    PIP_CONFIG_FILE: join(dir, "no-pip.conf"),
    GOENV: join(dir, "no-go-env"),
  };
}

const setupOf = async (rootFiles: string[], env: Record<string, string>) =>
  egressAllowlists(resolveConfig({ rootFiles }), await readHostRegistries(env)).setup;

describe("readHostRegistries", () => {
  it("nothing configured: every manager keeps its public registries", async () => {
    const env = home({});
    const registries = await readHostRegistries(env);
    // The machine's /etc/pip.conf may exist; it names no index here (checked by the next line).
    expect(registries.npm).toBeUndefined();
    expect(await setupOf(["package.json"], env)).toEqual(["registry.npmjs.org"]);
    expect(await setupOf(["go.mod"], env)).toEqual(["proxy.golang.org", "sum.golang.org"]);
    expect(await setupOf(["Cargo.toml"], env)).toEqual([
      "index.crates.io",
      "static.crates.io",
      "crates.io",
    ]);
  });

  it("reads ~/.npmrc, drops its token, and tells the setup box the same registry", async () => {
    const env = home({
      ".npmrc":
        "registry=https://npm.example.com/\n@acme:registry=https://npm.pkg.github.com/\n//npm.example.com/:_authToken=npm_FAKE_not_a_token\n",
    });
    const registries = await readHostRegistries(env);
    expect(registries.npm).toEqual({
      replace: ["https://npm.example.com/"],
      extra: ["https://npm.pkg.github.com/"],
      env: { npm_config_registry: "https://npm.example.com/" },
    });
    expect(JSON.stringify(registries)).not.toContain("npm_FAKE");
    expect(await setupOf(["package.json"], env)).toEqual(["npm.example.com", "npm.pkg.github.com"]);
  });

  it("the environment wins over the files; a URL's user and password never leave the host", async () => {
    const env = {
      ...home({ ".npmrc": "registry=https://npm.example.com/\n" }),
      NPM_CONFIG_REGISTRY: "https://forge-test:fake-password@npm.mirror.example/",
      PIP_INDEX_URL: "http://10.0.0.5:3141/root/pypi/+simple/",
      PIP_EXTRA_INDEX_URL: "https://a.example/simple https://b.example/simple",
    };
    const registries = await readHostRegistries(env);
    expect(registries.npm?.replace).toEqual(["https://npm.mirror.example/"]);
    expect(JSON.stringify(registries)).not.toContain("fake-password");
    expect(registryEnv(registries)).toMatchObject({
      npm_config_registry: "https://npm.mirror.example/",
      PIP_INDEX_URL: "http://10.0.0.5:3141/root/pypi/+simple/",
      PIP_EXTRA_INDEX_URL: "https://a.example/simple https://b.example/simple",
    });
    expect(await setupOf(["requirements.txt"], env)).toEqual([
      "10.0.0.5:3141",
      "a.example",
      "b.example",
    ]);
  });

  it("pip.conf in the user's config directory, [install] over [global]", async () => {
    const env = home({
      ".config/pip/pip.conf":
        "[global]\nindex-url = https://global.example/simple\n[install]\nindex-url = https://install.example/simple\n",
    });
    expect(await setupOf(["requirements.txt"], env)).toEqual(["install.example"]);
  });

  it("cargo's source replacement and named registries", async () => {
    const env = home({
      ".cargo/config.toml":
        '[source.crates-io]\nreplace-with = "mirror"\n[source.mirror]\nregistry = "sparse+https://crates.mirror.example/index/"\n[registries.acme]\nindex = "https://git.acme.example/index"\n',
    });
    expect(await setupOf(["Cargo.toml"], env)).toEqual([
      "crates.mirror.example",
      "git.acme.example",
    ]);
    const vendored = home({
      ".cargo/config.toml":
        '[source.crates-io]\nreplace-with = "vendored"\n[source.vendored]\ndirectory = "vendor"\n',
    });
    expect(await setupOf(["Cargo.toml"], vendored)).toEqual([]);
  });

  it("GOPROXY and GOSUMDB, from the environment or go's env file", async () => {
    const fromFile = home({ "go-env": "GOPROXY=https://goproxy.example.com,direct\n" });
    fromFile.GOENV = join(fromFile.HOME as string, "go-env");
    expect(await setupOf(["go.mod"], fromFile)).toEqual(["goproxy.example.com", "sum.golang.org"]);
    const env = { ...home({}), GOPROXY: "direct", GOSUMDB: "off" };
    expect(await setupOf(["go.mod"], env)).toEqual([]);
    expect(registryEnv(await readHostRegistries(env))).toEqual({
      GOPROXY: "direct",
      GOSUMDB: "off",
    });
  });

  it("a file it cannot read never fails: the public registries stay", async () => {
    const env = home({});
    mkdirSync(join(env.HOME as string, ".npmrc")); // a directory where a file belongs
    writeFileSync(join(env.HOME as string, "big"), "x".repeat(300 * 1024));
    env.npm_config_userconfig = join(env.HOME as string, "big");
    expect(await setupOf(["package.json"], env)).toEqual(["registry.npmjs.org"]);
  });
});
