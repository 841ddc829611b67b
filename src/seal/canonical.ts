import { createHash } from "node:crypto";

/**
 * The fields a seal covers, encoded so that no two different field sets share an encoding:
 * keys sorted (code-unit order, not locale), each pair a JSON array of two JSON strings. JSON
 * string escaping is unambiguous, so a boundary cannot be shifted ({"a":"b,c"} vs
 * {"a":"b","c":…}) and an extra or missing field always changes the bytes.
 */
export function canonicalFields(fields: Readonly<Record<string, string>>): string {
  const keys = Object.keys(fields).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const pairs: Array<[string, string]> = [];
  for (const key of keys) {
    const value = fields[key];
    if (typeof value !== "string") {
      throw new TypeError(`seal field "${key}" must be a string`);
    }
    pairs.push([key, value]);
  }
  return JSON.stringify(pairs);
}

/** sha256 (hex) of the canonical encoding: what the token carries and the MAC covers. */
export function fieldsDigest(fields: Readonly<Record<string, string>>): string {
  return createHash("sha256").update(canonicalFields(fields), "utf8").digest("hex");
}
