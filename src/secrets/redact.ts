import { type SecretFinding, scanSecrets } from "./scan.js";

/** A secret found inside a JSON value; `path` is a JSON pointer to the string that held it. */
export interface DeepSecretFinding extends SecretFinding {
  path: string;
}

/** Replaces every secret with `[REDACTED:<ruleId>]`; findings refer to the input text. */
export async function redactSecrets(
  text: string,
): Promise<{ text: string; findings: SecretFinding[] }> {
  const findings = await scanSecrets(text);
  let redacted = replaceRanges(text, findings);
  // A second pass catches a secret that only matches once its neighbour is gone (e.g. two
  // overlapping tokens); the extra findings refer to the partly redacted text.
  for (let pass = 0; pass < 3 && findings.length > 0; pass++) {
    const again = await scanSecrets(redacted);
    if (again.length === 0) break;
    findings.push(...again);
    redacted = replaceRanges(redacted, again);
  }
  return { text: redacted, findings };
}

export function redactionMarker(ruleId: string): string {
  return `[REDACTED:${ruleId}]`;
}

function replaceRanges(text: string, findings: SecretFinding[]): string {
  // Merge overlapping ranges so that no part of any secret survives between two markers.
  const merged: { start: number; end: number; ruleId: string }[] = [];
  for (const f of [...findings].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ start: f.start, end: f.end, ruleId: f.ruleId });
  }
  let out = "";
  let cursor = 0;
  for (const range of merged) {
    out += text.slice(cursor, range.start) + redactionMarker(range.ruleId);
    cursor = range.end;
  }
  return out + text.slice(cursor);
}

/** Deeper than this, a value is replaced whole: no legitimate role output nests that far. */
const MAX_DEPTH = 64;

/**
 * Redacts every string of a JSON value, object keys included, and returns a copy. Numbers,
 * booleans and null pass through. Anything nested deeper than MAX_DEPTH is replaced by
 * `[REDACTED:too-deep]` and reported, because it was not scanned.
 */
export async function redactDeep<T>(
  value: T,
): Promise<{ value: T; findings: DeepSecretFinding[] }> {
  const findings: DeepSecretFinding[] = [];
  const out = await walk(value, "", 0, findings);
  return { value: out as T, findings };
}

async function walk(
  value: unknown,
  path: string,
  depth: number,
  findings: DeepSecretFinding[],
): Promise<unknown> {
  if (depth > MAX_DEPTH) {
    findings.push({
      path,
      ruleId: "too-deep",
      messageId: "TooDeep",
      start: 0,
      end: 0,
      message: `value nested deeper than ${MAX_DEPTH} levels was not scanned`,
    });
    return redactionMarker("too-deep");
  }
  if (typeof value === "string") {
    const result = await redactSecrets(value);
    for (const f of result.findings) findings.push({ ...f, path });
    return result.text;
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      items.push(await walk(value[i], `${path}/${i}`, depth + 1, findings));
    }
    return items;
  }
  if (value !== null && typeof value === "object") {
    const entries: [string, unknown][] = [];
    for (const [key, child] of Object.entries(value)) {
      const cleanKey = await redactSecrets(key);
      // Paths point into the redacted copy, so they never show a key in clear.
      const keyPath = `${path}/${pointerEscape(cleanKey.text)}`;
      for (const f of cleanKey.findings) findings.push({ ...f, path: keyPath });
      const cleanChild = await walk(child, keyPath, depth + 1, findings);
      entries.push([cleanKey.text, cleanChild]);
    }
    // fromEntries defines own properties, so a `__proto__` key stays a plain key.
    return Object.fromEntries(entries);
  }
  return value;
}

function pointerEscape(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}
