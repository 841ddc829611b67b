import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registerDeploymentSecrets } from "../../src/app/compose.js";
import { clearKnownSecretsForTests, scanSecrets } from "../../src/secrets/index.js";
import { fake } from "../secrets/fake-secrets.js";

afterEach(() => clearKnownSecretsForTests());

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");
const ruleIds = async (text: string) => (await scanSecrets(text)).map((f) => f.ruleId);

describe("composition registers the deployment's secret values", () => {
  it("from its env, the gate key, the App key file and the claude login file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "forge-compose-secrets-"));
    try {
      const webhook = fake.opaqueSecret();
      const keyFile = join(dir, "app.pem");
      await writeFile(keyFile, `${fake.privateKey("RSA ")}\n`);
      const loginFile = join(dir, "credentials.json");
      const oauth = `oauth-${fake.opaqueSecret()}`;
      await writeFile(loginFile, JSON.stringify({ claudeAiOauth: { accessToken: oauth } }));
      const gateKey = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 29 + 3) % 256));
      const texts = [
        `x ${b64(`sig=${webhook}`)} y`,
        `x ${gateKey.toString("hex")} y`,
        `quoted: ${fake.privateKeyBodyLine()}`,
        `x ${encodeURIComponent(oauth)} y`,
      ];
      for (const text of texts) expect(await ruleIds(text)).toEqual([]);
      registerDeploymentSecrets(
        { env: { WEBHOOK_SECRET: webhook, PRIVATE_KEY_PATH: keyFile, PATH: "/bin" }, loginFile },
        gateKey,
      );
      for (const text of texts) expect(await ruleIds(text)).toEqual(["known-secret"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("does not fail when a named file is missing", () => {
    expect(() =>
      registerDeploymentSecrets(
        { env: { PRIVATE_KEY_PATH: "/nonexistent/app.pem" }, loginFile: "/nonexistent/login" },
        Buffer.alloc(32, 7),
      ),
    ).not.toThrow();
  });
});
