import { describe, expect, it } from "vitest";
import { redactDeep, redactSecrets } from "../../src/secrets/index.js";
import { fake } from "./fake-secrets.js";

describe("redactSecrets", () => {
  it("replaces each secret with [REDACTED:<ruleId>] and keeps the rest", async () => {
    const token = fake.githubToken();
    const slack = fake.slackToken();
    const { text, findings } = await redactSecrets(`a ${token} b ${slack} c`);
    expect(text).toBe("a [REDACTED:github] b [REDACTED:slack] c");
    expect(findings.map((f) => f.ruleId)).toEqual(["github", "slack"]);
  });

  it("removes the whole AWS secret value, not only secretlint's short range", async () => {
    const { text } = await redactSecrets(`x ${fake.awsSecretAssignment()} y`);
    expect(text).not.toContain(fake.awsSecretValue());
    expect(text).not.toContain(fake.awsSecretValue().slice(20));
    expect(text).toContain("[REDACTED:aws]");
  });

  it("removes every line of a private key", async () => {
    const key = fake.privateKey("RSA ");
    const { text } = await redactSecrets(`before\n${key}\nafter`);
    expect(text).toBe("before\n[REDACTED:privatekey]\nafter");
    const encrypted = await redactSecrets(fake.privateKey("ENCRYPTED "));
    expect(encrypted.text).toBe("[REDACTED:forge-private-key]");
  });

  it("leaves text without secrets unchanged", async () => {
    const text = "nothing to see: src/a.ts:10, exit 0";
    expect(await redactSecrets(text)).toEqual({ text, findings: [] });
  });
});

describe("redactDeep", () => {
  it("redacts every string of a JSON value, keys included, without touching the input", async () => {
    const token = fake.githubToken();
    const input = {
      verdict: "PASS",
      count: 3,
      ok: true,
      none: null,
      findings: [{ description: `found ${token}` }, { description: "fine" }],
      [token]: "a key that is a secret",
    };
    const before = JSON.stringify(input);
    const { value, findings } = await redactDeep(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(JSON.stringify(value)).not.toContain(token);
    expect(value.findings[0]?.description).toBe("found [REDACTED:github]");
    expect(value.count).toBe(3);
    expect(value.ok).toBe(true);
    expect(value.none).toBeNull();
    expect(Object.keys(value)).toContain("[REDACTED:github]");
    expect(findings.map((f) => f.path).sort()).toEqual([
      "/[REDACTED:github]",
      "/findings/0/description",
    ]);
  });

  it("keeps a __proto__ key a plain key (no prototype change)", async () => {
    const input = JSON.parse(`{"__proto__": {"polluted": "${fake.githubToken()}"}}`) as object;
    const { value } = await redactDeep(input);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value as object, "__proto__")).toBe(true);
    expect(JSON.stringify(value)).toContain("[REDACTED:github]");
  });

  it("replaces a value nested too deep to scan, and reports it", async () => {
    let deep: unknown = fake.githubToken();
    for (let i = 0; i < 80; i++) deep = [deep];
    const { value, findings } = await redactDeep(deep);
    expect(JSON.stringify(value)).not.toContain(fake.githubToken());
    expect(findings.map((f) => f.ruleId)).toContain("too-deep");
  });
});
