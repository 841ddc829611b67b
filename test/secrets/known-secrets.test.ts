import { afterEach, describe, expect, it, vi } from "vitest";
import {
  clearKnownSecretsForTests,
  knownSecretsFromEnv,
  knownSecretsFromJson,
  redactSecrets,
  registerKnownSecretBytes,
  registerKnownSecrets,
  scanSecrets,
} from "../../src/secrets/index.js";
import { fake } from "./fake-secrets.js";

afterEach(() => clearKnownSecretsForTests());

const value = fake.opaqueSecret();
const bytes = Buffer.from(value, "utf8");
const hex = bytes.toString("hex");
const everyByte = hex.replace(/../g, "%$&");

/** Bytes that are not text, so that a run holding them is not decoded: only the
 * known-value search can find a value among them. */
function binary(length: number, seed: number): Buffer {
  const pattern = [0x00, 0xff, 0x81, 0x1b];
  return Buffer.from(Array.from({ length }, (_, i) => pattern[(i + seed) % 4] ?? 0));
}

describe("known secret values", () => {
  it("are not found before they are registered (no shape rule knows them)", async () => {
    expect(await scanSecrets(`x ${value} y`)).toEqual([]);
  });

  const forms: Array<[string, string]> = [
    ["plain", value],
    ["base64", bytes.toString("base64")],
    ["base64url", bytes.toString("base64url")],
    ["hex", hex],
    ["upper-case hex", hex.toUpperCase()],
    ["encodeURIComponent", encodeURIComponent(value)],
    ["every byte %XX", everyByte.toUpperCase()],
    ["every byte %xx", everyByte],
  ];

  it.each(forms)("are found and redacted as %s", async (_name, form) => {
    registerKnownSecrets([value]);
    const text = `before ${form} after`;
    const findings = await scanSecrets(text);
    expect(findings.map((f) => f.ruleId)).toEqual(["known-secret"]);
    expect(JSON.stringify(findings)).not.toContain(value);
    const redacted = await redactSecrets(text);
    expect(redacted.text).toBe("before [REDACTED:known-secret] after");
  });

  it("names the encoding in the finding's message", async () => {
    registerKnownSecrets([value]);
    const [finding] = await scanSecrets(`q=${encodeURIComponent(value)}&x=1`);
    expect(finding?.message).toContain("URL-encoded");
  });

  // Base64 of a value inside a longer base64 text depends on its byte offset mod 3. Binary
  // around it keeps the run from being decoded, so only the three alignments' needles find it.
  it.each([0, 1, 2, 3, 4, 5])(
    "are found inside longer base64 and base64url at byte offset %i, the whole encoded value redacted",
    async (offset) => {
      registerKnownSecrets([value]);
      const data = Buffer.concat([binary(offset, 1), bytes, binary(60, 2)]);
      for (const encoding of ["base64", "base64url"] as const) {
        const encoded = data.toString(encoding);
        const findings = await scanSecrets(encoded);
        expect(findings.map((f) => f.ruleId)).toEqual(["known-secret"]);
        const [finding] = findings;
        // Every character holding a bit of the value is inside the finding.
        expect(finding?.start).toBeLessThanOrEqual(Math.floor((8 * offset) / 6));
        expect(finding?.end).toBeGreaterThanOrEqual(Math.ceil((8 * (offset + bytes.length)) / 6));
        expect(finding?.message).toContain(`(${encoding})`);
        const { text } = await redactSecrets(encoded);
        expect(text).toBe(
          `${encoded.slice(0, finding?.start)}[REDACTED:known-secret]${encoded.slice(finding?.end)}`,
        );
      }
    },
  );

  it("are found as hex, lower and upper case, inside a longer binary hex dump", async () => {
    registerKnownSecrets([value]);
    const dump = Buffer.concat([binary(7, 3), bytes, binary(40, 1)]).toString("hex");
    for (const text of [dump, dump.toUpperCase()]) {
      const findings = await scanSecrets(text);
      expect(findings.map((f) => f.message)).toEqual([
        "found a secret value this deployment holds (hex)",
      ]);
      expect(findings[0]?.start).toBe(14);
      expect(findings[0]?.end).toBe(14 + 2 * bytes.length);
    }
  });

  it("ignores values under 8 characters and duplicates; trims whitespace", async () => {
    registerKnownSecrets(["short12", "  short12  ", `${value}\n`, value]);
    expect(await scanSecrets("short12 short12")).toEqual([]);
    expect((await scanSecrets(`a ${value} b`)).map((f) => f.ruleId)).toEqual(["known-secret"]);
  });

  it("registers each line of a multi-line value (a PEM key's body), never its armour", async () => {
    const key = fake.privateKey("RSA ");
    registerKnownSecrets([key.replaceAll("\n", "\\n")]); // as PRIVATE_KEY is often given
    const line = fake.privateKeyBodyLine();
    const found = await scanSecrets(`the summary quotes ${line} only`);
    expect(found.map((f) => f.ruleId)).toEqual(["known-secret"]);
    const armour = key.split("\n")[0] ?? "";
    expect(await scanSecrets(`look for ${armour} headers`)).toEqual([]);
  });

  it("searches a binary secret (the gate key file) in its encodings", async () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256));
    registerKnownSecretBytes(key);
    for (const form of [key.toString("base64"), key.toString("hex").toUpperCase()]) {
      expect((await scanSecrets(`k=${form};`)).map((f) => f.ruleId)).toEqual(["known-secret"]);
    }
  });

  it("forgets a value registered with forgetAfterMs once that time has passed", async () => {
    // Only the clock is faked; a real wait would make the test depend on the machine's load.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      registerKnownSecrets([value], { forgetAfterMs: 60_000 });
      registerKnownSecrets([`${value}-kept`]);
      vi.setSystemTime(Date.now() + 59_000);
      expect(await scanSecrets(value)).toHaveLength(1);
      vi.setSystemTime(Date.now() + 2_000);
      expect(await scanSecrets(`x ${value} y`)).toEqual([]);
      expect(await scanSecrets(`x ${value}-kept y`)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("finds nothing in text that does not hold them", async () => {
    registerKnownSecrets([value, fake.githubToken(), "a-password-value"]);
    const text = "The reviewer read src/config.ts:42 and ran npm test (exit 0). ".repeat(200);
    expect(await scanSecrets(text)).toEqual([]);
  });
});

describe("knownSecretsFromEnv", () => {
  it("takes the named credentials, *_TOKEN/_SECRET/_KEY/_PASSWORD, and URL passwords", () => {
    const env = {
      ANTHROPIC_API_KEY: "sk-ant-value",
      GIT_PAT: "pat-value",
      WEBHOOK_SECRET: "hook-value",
      FORGE_GATE_SECRET: "gate-value",
      MY_SERVICE_PASSWORD: "service-value",
      deploy_token: "lower-case-name",
      DATABASE_URL: "postgres://app:p%40ss-word@db.internal:5432/app",
      CACHE_URL: "redis://cache.internal:6379",
      EMPTY_TOKEN: "",
      PATH: "/usr/bin:/bin",
      HOME: "/home/forge",
      PRIVATE_KEY_PATH: "/srv/app.pem",
      FORGE_HOME: "/var/lib/forge",
    };
    expect(knownSecretsFromEnv(env).sort()).toEqual(
      [
        "sk-ant-value",
        "pat-value",
        "hook-value",
        "gate-value",
        "service-value",
        "lower-case-name",
        "p%40ss-word",
        "p@ss-word",
      ].sort(),
    );
  });
});

describe("knownSecretsFromJson", () => {
  it("takes the values of secret-named keys at any depth (a claude login file)", () => {
    const login = JSON.stringify({
      claudeAiOauth: {
        accessToken: "oauth-access",
        refreshToken: "oauth-refresh",
        expiresAt: 1_700_000_000_000,
        scopes: ["user:inference"],
      },
    });
    expect(knownSecretsFromJson(login).sort()).toEqual(["oauth-access", "oauth-refresh"]);
    expect(knownSecretsFromJson("not json")).toEqual([]);
  });
});
