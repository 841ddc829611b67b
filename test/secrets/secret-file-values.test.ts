import { afterEach, describe, expect, it } from "vitest";
import {
  clearKnownSecretsForTests,
  redactSecrets,
  registerKnownSecrets,
  secretFileValues,
} from "../../src/secrets/index.js";

afterEach(() => clearKnownSecretsForTests());

describe("secretFileValues: what of a committed secret file is secret", () => {
  it("takes the values of assignments, not names, comments or blank lines", () => {
    const env = [
      "# Database settings for the forge test",
      "DB_PASSWORD=forge-test-not-a-real-password",
      'export API_TOKEN="forge-test-quoted-token-value"',
      "PORT=8080",
      "NAME = 'x'",
      "",
      "SHORT_OK=abc # a comment after the value",
    ].join("\n");
    expect(secretFileValues(env)).toEqual([
      "forge-test-not-a-real-password",
      "forge-test-quoted-token-value",
      "8080",
      "x",
      "abc",
    ]);
  });

  it("takes a key file whole (its body lines come with it) and long bare tokens", () => {
    const pem =
      "-----BEGIN PRIVATE KEY-----\nMIIforgetestnotarealkeybody0000000000\n-----END PRIVATE KEY-----\n";
    expect(secretFileValues(pem)[0]).toBe(pem);
    expect(secretFileValues("forge-test-bare-token-0123456789\nshort\n")).toEqual([
      "forge-test-bare-token-0123456789",
    ]);
  });

  it("ignores binary content", () => {
    expect(secretFileValues("a\0b=forge-test-binary-value")).toEqual([]);
  });

  it("registered, a value is redacted from a control's output, also base64-encoded", async () => {
    const value = "forge-test-not-a-real-password";
    registerKnownSecrets(secretFileValues(`DB_PASSWORD=${value}\n`));
    const output = `connecting with ${value}\nencoded: ${Buffer.from(value).toString("base64")}\n`;
    const { text } = await redactSecrets(output);
    expect(text).not.toContain(value);
    expect(text).not.toContain(Buffer.from(value).toString("base64"));
  });
});
