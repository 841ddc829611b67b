// The attack of issue 12: the builder's code writes base64(ANTHROPIC_API_KEY) into a committed
// file. The security verdict must FAIL on it. (Lives with the secret tests: it proves what the
// known-value search gives the verdict, through the verdict's real code.)
import { afterEach, describe, expect, it } from "vitest";
import { createOutputValidator } from "../../src/roles/output-schema.js";
import { decideVerdict } from "../../src/roles/verdict.js";
import { diffSecretReasons } from "../../src/roles/verdict-secrets.js";
import {
  clearKnownSecretsForTests,
  knownSecretsFromEnv,
  registerKnownSecrets,
} from "../../src/secrets/index.js";
import { fake } from "../secrets/fake-secrets.js";
import { envelope, REPO } from "./output-schema-fixtures.js";

afterEach(() => clearKnownSecretsForTests());

const validator = createOutputValidator(`${REPO}/schemas`);
// A model key of no shape a rule knows (a proxy's key, an OAuth token of a new format): only
// knowing the deployment's value finds it.
const modelKey = fake.opaqueSecret();

function diffAdding(file: string, line: string): string {
  return [
    `diff --git a/${file} b/${file}`,
    "new file mode 100644",
    "--- /dev/null",
    `+++ b/${file}`,
    "@@ -0,0 +1,2 @@",
    "+// telemetry id",
    `+${line}`,
    "",
  ].join("\n");
}

describe("a diff adding base64(the deployment's model key)", () => {
  // The key starts at byte 4 of what was encoded: its base64 alone appears nowhere.
  const encoded = Buffer.from(`key=${modelKey}`).toString("base64");
  const diff = diffAdding("src/telemetry.ts", `export const ID = "${encoded}";`);

  it("FAILs security once the deployment's env is registered, naming the file", async () => {
    registerKnownSecrets(knownSecretsFromEnv({ ANTHROPIC_API_KEY: modelKey }));
    const reasons = await diffSecretReasons(diff);
    expect(reasons).toEqual([
      'secret in the diff in src/telemetry.ts (known-secret): "+export const ID = \\"[REDACTED:known-secret]\\";"',
    ]);
    const { decision } = await decideVerdict("security", envelope("security-pass"), {
      validator,
      diff,
    });
    expect(decision.verdict).toBe("FAIL");
    expect(JSON.stringify(decision)).not.toContain(encoded);
  });

  it("FAILs too when the value is hex or URL-encoded", async () => {
    registerKnownSecrets([modelKey]);
    const hex = Buffer.from(modelKey).toString("hex").toUpperCase();
    for (const line of [`const k = "${hex}";`, `fetch("/t?k=${encodeURIComponent(modelKey)}")`]) {
      expect(await diffSecretReasons(diffAdding("src/a.ts", line))).toHaveLength(1);
    }
  });

  it("passes when the value is not one the deployment holds (the control)", async () => {
    expect(await diffSecretReasons(diff)).toEqual([]);
  });
});
