import * as z from "zod";
import { ForgeConfigSchema } from "./forge-config-schema.js";

/** Where schemas/forge-config.json is published (for editors: yaml-language-server $schema). */
export const FORGE_CONFIG_SCHEMA_ID =
  "https://github.com/forgechain/forgechain/blob/main/schemas/forge-config.json";

/**
 * The JSON Schema of .github/forge.yml, generated from the zod schema the runtime uses, so
 * the two cannot drift (a test compares it with the committed schemas/forge-config.json).
 * Refinements that JSON Schema cannot say (a pinned sha, a known built-in) are only checked
 * at runtime; the schema's descriptions name them.
 */
export function forgeConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ForgeConfigSchema, {
    target: "draft-2020-12",
    unrepresentable: "any",
  });
  return { ...schema, $id: FORGE_CONFIG_SCHEMA_ID, title: "forgechain .github/forge.yml" };
}

/** The committed file's exact text. */
export function forgeConfigJsonSchemaText(): string {
  return `${JSON.stringify(forgeConfigJsonSchema(), null, 2)}\n`;
}
