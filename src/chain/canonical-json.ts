// Canonical JSON (RFC 8785 style: object keys sorted by UTF-16 code units, no whitespace,
// ECMAScript number and string serialisation). Used for content digests (R8.5) and for
// comparing replayed feedback (R6.2), where two spellings of the same object must be equal.

export class NotJsonError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path || "value"} is not plain JSON: ${what}`);
    this.name = "NotJsonError";
  }
}

export function canonicalJson(value: unknown): string {
  return write(value, "$", new Set());
}

function write(value: unknown, path: string, seen: Set<object>): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new NotJsonError(path, String(value));
      return JSON.stringify(value);
    case "object":
      break;
    default:
      // undefined, functions, symbols and bigints have no JSON form; refusing them keeps two
      // different inputs from silently hashing to the same text.
      throw new NotJsonError(path, typeof value);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new NotJsonError(path, "cycle");
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      return `[${obj.map((item, i) => write(item, `${path}[${i}]`, seen)).join(",")}]`;
    }
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      throw new NotJsonError(path, `instance of ${proto?.constructor?.name ?? "unknown"}`);
    }
    const keys = Object.keys(obj).sort();
    const parts: string[] = [];
    for (const key of keys) {
      const item = (obj as Record<string, unknown>)[key];
      // An absent optional field and an undefined one mean the same thing.
      if (item === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${write(item, `${path}.${key}`, seen)}`);
    }
    return `{${parts.join(",")}}`;
  } finally {
    seen.delete(obj);
  }
}
