import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_DECODED_CHARS } from "../../src/secrets/decoded-batch.js";
import {
  clearKnownSecretsForTests,
  redactSecrets,
  registerKnownSecrets,
  scanSecrets,
} from "../../src/secrets/index.js";
import { fake } from "./fake-secrets.js";

afterEach(() => clearKnownSecretsForTests());

const token = fake.githubToken();
/** A small config file holding a token that secretlint's GitHub rule knows by its shape. */
const config = `deploy:\n  host: ci.example.test\n  token: ${token}\n  retries: 3\n`;
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const hexOf = (text: string) => Buffer.from(text, "utf8").toString("hex");
/** Wrapped like `base64` (76 columns) or `xxd -p` (60). */
const wrap = (encoded: string, width: number) =>
  encoded.match(new RegExp(`.{1,${width}}`, "g")) ?? [];

async function onlyFinding(text: string) {
  const findings = await scanSecrets(text);
  expect(findings).toHaveLength(1);
  return findings[0] as NonNullable<(typeof findings)[0]>;
}

describe("encoded runs are decoded and scanned with the same rules", () => {
  const single: Array<[string, string, string]> = [
    ["base64", b64(config), "base64-encoded"],
    ["base64url", Buffer.from(config).toString("base64url"), "base64-encoded"],
    ["hex", hexOf(config), "hex-encoded"],
    ["upper-case hex", hexOf(config).toUpperCase(), "hex-encoded"],
  ];

  it.each(single)(
    "finds a GitHub token inside a %s run, reported over the whole run",
    async (_name, run, label) => {
      const text = `const blob = "${run}";\n`;
      const finding = await onlyFinding(text);
      expect(finding.ruleId).toBe("github");
      expect(finding.message).toContain(label);
      expect(text.slice(finding.start, finding.end)).toBe(run);
      expect((await redactSecrets(text)).text).toBe('const blob = "[REDACTED:github]";\n');
    },
  );

  it("finds it in wrapped base64 added by a diff (every line starts with +)", async () => {
    const lines = wrap(b64(`${config}${"# padding line of the file\n".repeat(4)}`), 76);
    expect(lines.length).toBeGreaterThan(2);
    const diff = [
      "diff --git a/blob.txt b/blob.txt",
      "+++ b/blob.txt",
      "@@ -0,0 +1,4 @@",
      ...lines.map((l) => `+${l}`),
      " unchanged",
    ].join("\n");
    const finding = await onlyFinding(diff);
    expect(finding.ruleId).toBe("github");
    const { text } = await redactSecrets(diff);
    expect(text).toContain("@@ -0,0 +1,4 @@\n+[REDACTED:github]\n unchanged");
  });

  it("finds it in wrapped base64 inside a JSON transcript (escaped line breaks)", async () => {
    const output = `${wrap(b64(config), 76).join("\n")}\n`;
    const transcript = JSON.stringify({ type: "tool_result", content: output });
    const finding = await onlyFinding(transcript);
    expect(finding.ruleId).toBe("github");
    expect((await redactSecrets(transcript)).text).not.toContain(wrap(b64(config), 76)[1]);
  });

  it("finds it in `xxd -p` output (hex wrapped at 60)", async () => {
    const finding = await onlyFinding(`$ xxd -p cfg\n${wrap(hexOf(config), 60).join("\n")}\n$ `);
    expect(finding.ruleId).toBe("github");
    expect(finding.message).toContain("hex-encoded");
  });

  it("finds a hex run glued to a prefix (0x…)", async () => {
    const finding = await onlyFinding(`const k = 0x${hexOf(config)};`);
    expect(finding.ruleId).toBe("github");
  });

  it("finds a known value inside a decoded run (the value's encoding in the run differs)", async () => {
    const secret = fake.opaqueSecret();
    registerKnownSecrets([secret]);
    // The value sits at offset 1 of the decoded text: its base64 alone never appears.
    const text = `x ${b64(`=${secret}\n and more text after it`)} y`;
    const finding = await onlyFinding(text);
    expect(finding.ruleId).toBe("known-secret");
  });
});

describe("benign encoded text is not reported", () => {
  // A real PNG header, then bytes of an image: binary, so it is not scanned as text.
  const png = Buffer.concat([
    Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"),
    Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 73 + 5) % 256)),
  ]);
  const cases: Array<[string, string]> = [
    ["an image data URI", `<img src="data:image/png;base64,${png.toString("base64")}">`],
    ["a sha256 hex digest", `sha256: ${createHash("sha256").update("x").digest("hex")}`],
    [
      "git object ids",
      `commit ${createHash("sha1").update("a").digest("hex")}\nparent ${createHash("sha1").update("b").digest("hex")}`,
    ],
    [
      "an npm integrity hash",
      `"integrity": "sha512-${createHash("sha512").update("x").digest("base64")}"`,
    ],
    [
      "base64 of ordinary text",
      b64("The reviewer read src/config.ts and ran npm test.\n".repeat(3)),
    ],
    ["a short base64 value", `id: ${b64("IntegrationInstallation42")}`],
  ];

  it.each(cases)("%s", async (_name, text) => {
    expect(await scanSecrets(text)).toEqual([]);
  });
});

describe("the decode limit", () => {
  it("past MAX_DECODED_CHARS, decodes nothing more and reports each further run (fail closed)", async () => {
    const prose = "ordinary log text that a tool happened to base64-encode, line after line. ";
    const line = b64(prose.repeat(40)); // about 3000 decoded characters
    const lines = Math.ceil(MAX_DECODED_CHARS / (prose.length * 40)) + 1;
    // Blank lines between: separate runs, not one wrapped block.
    const text = `${Array.from({ length: lines }, () => line).join("\n\n")}\n\n${b64(config)}\n`;
    const findings = await scanSecrets(text);
    const last = findings.at(-1);
    expect(last?.ruleId).toBe("encoded-unscanned");
    expect(text.slice(last?.start, last?.end)).toBe(b64(config));
    expect(findings.every((f) => f.ruleId === "encoded-unscanned")).toBe(true);
    expect(findings.length).toBeLessThan(lines);
  });
});
