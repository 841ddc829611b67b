import { describe, expect, it } from "vitest";
import { scanSecrets } from "../../src/secrets/index.js";
import { fake } from "./fake-secrets.js";

describe("scanSecrets (secretlint recommended preset + extras)", () => {
  const cases: Array<[string, () => string, string]> = [
    ["GitHub classic token", () => fake.githubToken(), "github"],
    ["GitHub fine-grained token", () => fake.githubFineGrained(), "github"],
    ["Slack token", () => fake.slackToken(), "slack"],
    ["Anthropic key", () => fake.anthropicKey(), "anthropic"],
    ["npm token", () => `//registry.npmjs.org/:_authToken=${fake.npmToken()}`, "npm"],
    ["AWS secret access key", () => fake.awsSecretAssignment(), "aws"],
    ["AWS access key id (enableIDScanRule)", () => fake.awsAccessKeyId(), "aws"],
    ["RSA private key", () => fake.privateKey("RSA "), "privatekey"],
    ["PKCS#8 private key", () => fake.privateKey(""), "privatekey"],
    [
      "encrypted private key (extra pattern)",
      () => fake.privateKey("ENCRYPTED "),
      "forge-private-key",
    ],
    [
      "basic auth in a URL",
      () => `https://deploy:${"s3cretPassw0rd"}@git.example.com/x`,
      "basicauth",
    ],
  ];

  it.each(cases)("finds a %s", async (_name, make, ruleId) => {
    const secret = make();
    const text = `before ${secret} after`;
    const findings = await scanSecrets(text);
    expect(findings.map((f) => f.ruleId)).toContain(ruleId);
    for (const f of findings) {
      expect(JSON.stringify(f)).not.toContain(secret);
      expect(f.start).toBeGreaterThanOrEqual(0);
      expect(f.end).toBeLessThanOrEqual(text.length);
    }
  });

  it("finds nothing in ordinary text", async () => {
    expect(
      await scanSecrets("The reviewer read src/config.ts:42 and ran npm test (exit 0)."),
    ).toEqual([]);
    expect(await scanSecrets("")).toEqual([]);
  });

  it("ignores secretlint-disable comments: the scanned text is written by the parties we scan", async () => {
    const token = fake.githubToken();
    for (const text of [
      `// secretlint-disable\n${token}\n`,
      `/* secretlint-disable */ ${token}`,
      `# secretlint-disable-next-line\n${token}`,
      `${token} // secretlint-disable-line`,
    ]) {
      const findings = await scanSecrets(text);
      expect(
        findings.map((f) => f.ruleId),
        text,
      ).toContain("github");
    }
  });

  it("reports the AWS secret with a range that covers the whole value (secretlint's is short)", async () => {
    const text = `config: ${fake.awsSecretAssignment()} # prod`;
    const [finding] = (await scanSecrets(text)).filter((f) => f.ruleId === "aws");
    expect(finding).toBeDefined();
    const covered = text.slice(finding?.start, finding?.end);
    expect(covered).toContain(fake.awsSecretValue());
  });

  it("reports a truncated private key block that the preset skips", async () => {
    const key = fake.privateKey("RSA ").split("\n").slice(0, 3).join("\n");
    const findings = await scanSecrets(`summary: the file holds ${key}`);
    expect(findings.map((f) => f.ruleId)).toContain("forge-private-key");
  });

  it("does not report a bare mention of a key header", async () => {
    expect(
      await scanSecrets("look for -----BEGIN RSA PRIVATE KEY----- headers in the diff"),
    ).toEqual([]);
  });

  it("finds a secret inside JSON text (escaped newlines)", async () => {
    const text = JSON.stringify({ key: fake.privateKey(""), token: fake.githubToken() });
    const ids = (await scanSecrets(text)).map((f) => f.ruleId);
    expect(ids).toContain("github");
    expect(ids).toContain("privatekey");
  });
});
