import { afterEach, describe, expect, it } from "vitest";
import { gitAuthEnv, gitWebBase, repoRemote } from "../../src/app/git-auth.js";
import { buildAgentEnv } from "../../src/runner/agent-env.js";
import { clearKnownSecretsForTests, scanSecrets } from "../../src/secrets/index.js";

afterEach(() => clearKnownSecretsForTests());

describe("the installation token reaches git only", () => {
  const token = `ghs_${"A".repeat(36)}`;

  it("as an http.extraHeader in git's environment, never in the remote URL", () => {
    const env = gitAuthEnv(token);
    expect(env.GIT_CONFIG_KEY_0).toBe("http.extraHeader");
    expect(
      Buffer.from(
        env.GIT_CONFIG_VALUE_0?.replace("Authorization: Basic ", "") ?? "",
        "base64",
      ).toString(),
    ).toBe(`x-access-token:${token}`);
    expect(repoRemote(gitWebBase({}), "octo-org", "widgets")).toBe(
      "https://github.com/octo-org/widgets.git",
    );
  });

  it("the git host comes from the deployment (GHE_HOST), never from a payload", () => {
    expect(gitWebBase({ GHE_HOST: "127.0.0.1:8080", GHE_PROTOCOL: "http" })).toBe(
      "http://127.0.0.1:8080",
    );
    expect(gitWebBase({ FORGE_GIT_URL: "https://git.example/", GHE_HOST: "x" })).toBe(
      "https://git.example",
    );
    expect(() => repoRemote("https://github.com", "..", "x")).toThrow();
    expect(() => repoRemote("https://github.com", "o", "a/b")).toThrow();
  });

  it("an agent environment built from a host env holding the git auth carries none of it", () => {
    const agent = buildAgentEnv({
      host: { PATH: "/bin", ...gitAuthEnv(token) },
      home: "/tmp/h",
      providerCredentials: {},
      extra: {},
    });
    expect(JSON.stringify(agent)).not.toContain("extraHeader");
    expect(Object.keys(agent).some((k) => k.startsWith("GIT_CONFIG_KEY"))).toBe(false);
  });

  it("registers the token it is given, so every secret scan looks for it in any encoding", async () => {
    // An older GitHub Enterprise token shape that no secret rule knows.
    const opaque = `v1.${"0123456789abcdef".repeat(3).slice(0, 40)}`;
    const everyByte = Buffer.from(opaque).toString("hex").replace(/../g, "%$&");
    expect(await scanSecrets(`leaked ${everyByte}`)).toEqual([]);
    gitAuthEnv(opaque);
    expect((await scanSecrets(`leaked ${everyByte}`)).map((f) => f.ruleId)).toEqual([
      "known-secret",
    ]);
  });
});
