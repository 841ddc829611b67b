import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  forgeConfigJsonSchema,
  forgeConfigJsonSchemaText,
} from "../../src/policy/config-json-schema.js";

const ROOT = join(import.meta.dirname, "../..");
const COMMITTED = join(ROOT, "schemas/forge-config.json");

describe("schemas/forge-config.json", () => {
  it("is the JSON Schema generated from the runtime zod schema", () => {
    // To regenerate: FORGE_WRITE_SCHEMA=1 npx vitest run test/policy/config-json-schema.test.ts
    // then `npx biome check --write schemas/forge-config.json`.
    if (process.env.FORGE_WRITE_SCHEMA === "1")
      writeFileSync(COMMITTED, forgeConfigJsonSchemaText());
    expect(JSON.parse(readFileSync(COMMITTED, "utf8"))).toEqual(forgeConfigJsonSchema());
  });

  it("agrees with the runtime schema on the fixtures", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(COMMITTED, "utf8")));
    const fixture = (kind: string, name: string) => {
      try {
        return (
          parse(
            readFileSync(join(ROOT, "fixtures/config", kind, name, ".github/forge.yml"), "utf8"),
          ) ?? {}
        );
      } catch {
        return undefined;
      }
    };
    for (const name of readdirSync(join(ROOT, "fixtures/config/valid"))) {
      const data = fixture("valid", name);
      if (data !== undefined)
        expect(validate(data), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // Structural refusals are refusals for editors too.
    for (const name of [
      "typo-key",
      "typo-nested",
      "unprotect-key",
      "wrong-types",
      "missing-run",
      "top-level-list",
      "network-entries",
    ]) {
      expect(validate(fixture("refused", name)), name).toBe(false);
    }
  });
});
