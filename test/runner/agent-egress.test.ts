// What an agent's box may reach and where its model credential is (R4.6): the real key never in
// the box's variables when the door can add it; a login kept in the box and said so.
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_CREDENTIAL } from "../../src/egress/relay-command.js";
import { agentEgress } from "../../src/runner/agent-egress.js";
import { fake } from "../secrets/fake-secrets.js";

const KEY = fake.anthropicKey();

describe("agentEgress", () => {
  it("an API key: the gateway adds it; the box gets a placeholder and the relay as its endpoint", () => {
    const e = agentEgress({
      provider: "claude",
      credentials: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: "http://127.0.0.1:4000" },
      loginFile: false,
      controlled: true,
    });
    expect(e.credential).toBe("outside");
    expect(e.rules).toEqual([]);
    expect(e.gateway).toEqual({ upstream: "http://127.0.0.1:4000", headers: { "x-api-key": KEY } });
    expect(e.boxEnv).toEqual({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:28080",
      ANTHROPIC_API_KEY: PLACEHOLDER_CREDENTIAL,
    });
    expect(JSON.stringify(e.boxEnv)).not.toContain(KEY);
  });

  it("an auth token goes as a bearer; the default endpoint is Anthropic's API", () => {
    const e = agentEgress({
      provider: "claude",
      credentials: { ANTHROPIC_AUTH_TOKEN: "forge-test-token" },
      loginFile: false,
      controlled: true,
    });
    expect(e.gateway).toEqual({
      upstream: "https://api.anthropic.com",
      headers: { authorization: "Bearer forge-test-token" },
    });
    expect(e.boxEnv.ANTHROPIC_AUTH_TOKEN).toBe(PLACEHOLDER_CREDENTIAL);
  });

  it("a subscription login stays in the box, which reaches only the API and login hosts", () => {
    const logins: Array<{ credentials: Record<string, string>; loginFile: boolean }> = [
      { credentials: { CLAUDE_CODE_OAUTH_TOKEN: "forge-test-oauth" }, loginFile: false },
      { credentials: {}, loginFile: true },
    ];
    for (const o of logins) {
      const e = agentEgress({ provider: "claude", controlled: true, ...o });
      expect(e.credential).toBe("in-box");
      expect(e.gateway).toBeUndefined();
      expect(e.rules).toEqual([
        "api.anthropic.com",
        "console.anthropic.com",
        "platform.claude.com",
      ]);
      expect(e.boxEnv).toEqual(o.credentials);
    }
  });

  it("codex: its endpoint by CONNECT, its key in the box", () => {
    const e = agentEgress({
      provider: "codex",
      credentials: { OPENAI_API_KEY: "forge-test-openai" },
      loginFile: false,
      controlled: true,
    });
    expect(e).toMatchObject({ rules: ["api.openai.com"], credential: "in-box" });
    expect(e.boxEnv.OPENAI_API_KEY).toBe("forge-test-openai");
  });

  it("the host network: the credential as it is, in the box, and said so", () => {
    const e = agentEgress({
      provider: "claude",
      credentials: { ANTHROPIC_API_KEY: KEY },
      loginFile: false,
      controlled: false,
    });
    expect(e).toEqual({ rules: [], boxEnv: { ANTHROPIC_API_KEY: KEY }, credential: "in-box" });
    expect(
      agentEgress({ provider: "claude", credentials: {}, loginFile: false, controlled: true })
        .credential,
    ).toBe("none");
  });
});
