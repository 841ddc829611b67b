import * as z from "zod";
import { ForgeConfigSchema } from "./forge-config-schema.js";

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
  // No $id: editors point at the file (`# yaml-language-server: $schema=<path or URL>`).
  return { ...schema, title: "forgechain .github/forge.yml" };
}

/** The committed file's exact text. */
export function forgeConfigJsonSchemaText(): string {
  return `${JSON.stringify(forgeConfigJsonSchema(), null, 2)}\n`;
}
