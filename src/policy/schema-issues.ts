import { closest, distance } from "fastest-levenshtein";
import * as z from "zod";
import { type ConfigIssue, dottedPath } from "./issues.js";
import type { YamlSource } from "./yaml-source.js";

/**
 * Per-location advice for a wrong key: what the key is for and what to write instead. Keys
 * that look like an attempt to undo a protection get a message naming the rule instead of a
 * spelling suggestion ("did you mean protected_paths?" would point at the wrong fix).
 */
export interface UnknownKeyRule {
  test: RegExp;
  /** Only for keys directly under this dotted path ("network"); everywhere when absent. */
  at?: string;
  message: string;
  fix: string;
}

export interface TranslateOptions {
  unknownKeyRules?: readonly UnknownKeyRule[];
  /** A location-specific fix (dotted path, offending value), preferred over the generic one. */
  fixFor?: (path: string, value: unknown) => string | undefined;
}

/** Turns zod's issues into ConfigIssues with positions, expectations and fixes. */
export function translateZodIssues(
  schema: z.ZodType,
  error: z.ZodError,
  source: YamlSource,
  options: TranslateOptions = {},
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of error.issues) {
    for (const translated of translateOne(schema, issue, source, options)) {
      const better =
        translated.code === "unknown_key"
          ? undefined
          : options.fixFor?.(translated.path, valueAt(source.data, issue.path));
      out.push(better ? { ...translated, fix: better } : translated);
    }
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

function translateOne(
  schema: z.ZodType,
  issue: z.core.$ZodIssue,
  source: YamlSource,
  options: TranslateOptions,
): ConfigIssue[] {
  const path = issue.path;
  const base = { severity: "error" as const, file: source.file };
  const where = (p: readonly PropertyKey[], part: "key" | "value" = "value") =>
    source.locate(p, part) ?? { line: 1, column: 1 };
  const value = valueAt(source.data, path);
  const described = describedAt(schema, path);
  const name = dottedPath(path) || "the file";

  switch (issue.code) {
    case "unrecognized_keys": {
      const valid = knownKeysAt(schema, path);
      return issue.keys.map((key) => {
        const rule = options.unknownKeyRules?.find(
          (r) => (r.at === undefined || r.at === dottedPath(path)) && r.test.test(key),
        );
        const suggestion = suggest(key, valid);
        return {
          ...base,
          code: "unknown_key",
          path: dottedPath([...path, key]),
          ...where([...path, key], "key"),
          message: rule ? `unknown key "${key}" — ${rule.message}` : `unknown key "${key}"`,
          fix: rule
            ? rule.fix
            : suggestion
              ? `did you mean "${suggestion}"?`
              : `the keys allowed here are: ${valid.join(", ") || "(none)"}`,
        };
      });
    }
    case "invalid_type": {
      if (value === undefined) {
        const key = String(path[path.length - 1] ?? "");
        return [
          {
            ...base,
            code: "missing_key",
            path: name,
            ...where(path.slice(0, -1)),
            message: `missing required key "${key}" in ${dottedPath(path.slice(0, -1)) || "the file"}`,
            expected: described ?? issue.expected,
            fix: `add ${key}: under ${dottedPath(path.slice(0, -1)) || "the top level"}`,
          },
        ];
      }
      return [
        {
          ...base,
          code: "wrong_type",
          path: name,
          ...where(path),
          message: `${name}: expected ${article(issue.expected)}, got ${describeValue(value)}`,
          expected: described,
          fix: typeFix(issue.expected, value, path),
        },
      ];
    }
    case "invalid_value": {
      const allowed = issue.values.map((v) => JSON.stringify(v));
      const suggestion =
        typeof value === "string"
          ? suggest(
              value,
              issue.values.filter((v): v is string => typeof v === "string"),
            )
          : undefined;
      return [
        {
          ...base,
          code: "invalid_value",
          path: name,
          ...where(path),
          message: `${name}: ${describeValue(value)} is not allowed`,
          expected: `one of ${allowed.join(", ")}`,
          fix: suggestion ? `did you mean "${suggestion}"?` : `use one of ${allowed.join(", ")}`,
        },
      ];
    }
    case "invalid_key": {
      const key = String(path[path.length - 1] ?? "");
      const inner = issue.issues[0]?.message;
      return [
        {
          ...base,
          code: "invalid_key",
          path: name,
          ...where(path, "key"),
          message: `invalid name "${key}" in ${dottedPath(path.slice(0, -1))}${inner && !inner.startsWith("Invalid string") ? `: ${inner}` : ""}`,
          expected: describedKeyAt(schema, path.slice(0, -1)),
          fix: "rename the key",
        },
      ];
    }
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const dir = issue.code === "too_small" ? "at least" : "at most";
      const unit =
        issue.origin === "string"
          ? " characters"
          : issue.origin === "array" || issue.origin === "set"
            ? " entries"
            : "";
      return [
        {
          ...base,
          code: issue.code,
          path: name,
          ...where(path),
          message: `${name}: ${describeValue(value)} is ${issue.code === "too_small" ? "too small" : "too large"}`,
          expected: described ?? `${dir} ${String(bound)}${unit}`,
          fix: `use a value that is ${dir} ${String(bound)}${unit}`,
        },
      ];
    }
    default: {
      // invalid_format (regex), custom refinements, not_multiple_of, …: the schema's own
      // message is specific enough, the description says what is expected.
      return [
        {
          ...base,
          code: issue.code,
          path: name,
          ...where(path),
          message: `${name}: ${issue.code === "invalid_format" ? `${describeValue(value)} is not valid` : issue.message}`,
          expected: described,
          fix: issue.code === "custom" ? undefined : "write the value in the expected form",
        },
      ];
    }
  }
}

/** The nearest valid key when it is close enough to be a typo. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const best = closest(word, [...candidates]);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(word.toLowerCase(), best.toLowerCase()) <= limit ? best : undefined;
}

/** The keys an object schema accepts at `path` (after unwrapping optionals/records/arrays). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const at = schemaAt(schema, path);
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

export function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else return undefined;
    current = current ? unwrap(current) : undefined;
  }
  return current;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

function describedAt(schema: z.ZodType, path: readonly PropertyKey[]): string | undefined {
  // The description sits on the inner type or on its optional wrapper: try both.
  const inner = schemaAt(schema, path)?.description;
  if (inner || path.length === 0) return inner;
  const parent = schemaAt(schema, path.slice(0, -1));
  return parent instanceof z.ZodObject
    ? (parent.shape as Record<string, z.ZodType>)[String(path[path.length - 1])]?.description
    : undefined;
}

function describedKeyAt(schema: z.ZodType, path: readonly PropertyKey[]): string | undefined {
  const at = schemaAt(schema, path);
  return at instanceof z.ZodRecord ? (at.keyType as z.ZodType).description : undefined;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

export function describeValue(value: unknown): string {
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a block of keys";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  return `${typeof value} ${String(value)}`;
}

function article(expected: string): string {
  switch (expected) {
    case "object":
      return "a block of keys";
    case "array":
      return "a list";
    case "boolean":
      return "true or false";
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "int":
      return "a whole number";
    default:
      return expected;
  }
}

function typeFix(expected: string, value: unknown, path: readonly PropertyKey[]): string {
  const key = String(path[path.length - 1] ?? "");
  if (expected === "boolean" && typeof value === "string") {
    return `write ${key}: true or ${key}: false (YAML 1.2: yes/no/on/off are strings)`;
  }
  if (expected === "object" && typeof value === "string" && path[path.length - 2] === "validate") {
    return `write ${key}: { run: ${JSON.stringify(value)} }`;
  }
  if (expected === "array" && typeof value === "string") {
    return `write it as a list: ${key}: [${JSON.stringify(value)}]`;
  }
  if (expected === "string" && value !== null && typeof value !== "object") {
    return `quote the value: ${key}: "${String(value)}"`;
  }
  return `give ${key} ${article(expected)}`;
}
