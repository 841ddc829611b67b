/** Why text could not be read as a role's output; the message never quotes the input. */
export const NOT_JSON = "output is not JSON";

export type ParsedOutput = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * Parses what a role step printed. Accepts one JSON document (the `--output-format json`
 * object or array, or a bare structured object) and, as a fallback, JSON Lines
 * (`--output-format stream-json`): then the last `result` message counts. Never throws.
 * The reason is a fixed string on purpose: JSON.parse's own message quotes the input, and the
 * input may hold a secret.
 */
export function parseOutputText(text: string): ParsedOutput {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") return { ok: false, reason: NOT_JSON };
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown };
  } catch {
    // fall through to JSON Lines
  }
  const lines = trimmed.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length < 2) return { ok: false, reason: NOT_JSON };
  let result: unknown;
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { ok: false, reason: NOT_JSON };
    }
    if (
      value !== null &&
      typeof value === "object" &&
      (value as { type?: unknown }).type === "result"
    ) {
      result = value;
    }
  }
  return result === undefined ? { ok: false, reason: NOT_JSON } : { ok: true, value: result };
}
