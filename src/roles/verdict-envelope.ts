/**
 * Unwraps what a role step printed: Claude Code's `--output-format json` result object, the
 * array `--verbose` prints (its last `result` message counts), or a bare structured object.
 * Only `structured_output` is ever taken as the role's answer — never the free `result` text:
 * when the model ends without a valid StructuredOutput call the CLI still reports
 * `subtype: "success"` with `structured_output: null` (FACTS.md).
 */
export interface Unwrapped {
  kind: "envelope" | "bare" | "none";
  /** The structured output; undefined when there is none (null and missing count as none). */
  structured: unknown;
  /** Why the run itself counts as failed (errored, wrong subtype, not a result object). */
  runErrors: string[];
  /** The envelope's free text `result`, scanned for secrets but never trusted. */
  resultText?: string;
}

const ENVELOPE_KEYS = ["type", "subtype", "is_error", "structured_output", "result", "session_id"];

export function unwrapOutput(raw: unknown): Unwrapped {
  if (Array.isArray(raw)) {
    const last = raw.findLast((item) => isRecord(item) && item.type === "result");
    if (last === undefined) {
      return {
        kind: "none",
        structured: undefined,
        runErrors: ["no result message in the output"],
      };
    }
    return unwrapEnvelope(last as Record<string, unknown>);
  }
  if (!isRecord(raw)) {
    return { kind: "none", structured: undefined, runErrors: ["output is not a JSON object"] };
  }
  // A bare structured object has none of these keys (its schema forbids extra properties), so
  // any of them means the object claims to be an envelope and is held to the envelope rules.
  if (ENVELOPE_KEYS.some((key) => Object.hasOwn(raw, key))) return unwrapEnvelope(raw);
  return { kind: "bare", structured: raw, runErrors: [] };
}

function unwrapEnvelope(envelope: Record<string, unknown>): Unwrapped {
  const runErrors: string[] = [];
  if (envelope.type !== "result") {
    runErrors.push(`not a Claude Code result object (type is ${describe(envelope.type)})`);
  }
  if (envelope.is_error === true) runErrors.push("the run errored (is_error: true)");
  else if (envelope.is_error !== false) {
    runErrors.push(
      `the run did not report is_error: false (is_error is ${describe(envelope.is_error)})`,
    );
  }
  if (envelope.subtype !== "success") {
    runErrors.push(`the run ended with subtype ${describe(envelope.subtype)}, not "success"`);
  }
  const structured = envelope.structured_output ?? undefined;
  return {
    kind: "envelope",
    structured,
    runErrors,
    ...(typeof envelope.result === "string" ? { resultText: envelope.result } : {}),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A short, quoted rendering of an envelope field for a reason (the reason is redacted later). */
function describe(value: unknown): string {
  if (value === undefined) return "missing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
