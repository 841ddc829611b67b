import { type DeepSecretFinding, redactSecrets } from "../secrets/index.js";

/**
 * Reasons for R3.3's secret rule. A reason names the rule and where the secret was, and
 * shows context only from text that was redacted as a whole — never the original — so the
 * secret appears only as `[REDACTED:<rule>]`.
 */
const MAX_SECRET_REASONS = 20;
const CONTEXT = 40;
const MARKER = /\[REDACTED:[^\]\s]{1,80}\]/g;

export function outputSecretReasons(
  findings: DeepSecretFinding[],
  redactedOutput: unknown,
): string[] {
  const byPath = new Map<string, Set<string>>();
  for (const f of findings) {
    const rules = byPath.get(f.path) ?? new Set<string>();
    rules.add(f.ruleId);
    byPath.set(f.path, rules);
  }
  const reasons: string[] = [];
  for (const [path, rules] of byPath) {
    const value = valueAt(redactedOutput, path);
    const context = typeof value === "string" ? `: ${excerpts(value)[0] ?? ""}` : "";
    reasons.push(
      `secret in the structured output at ${path || "(root)"} (${[...rules].join(", ")})${context}`,
    );
  }
  return cap(reasons);
}

export async function textSecretReasons(
  label: string,
  text: string | undefined,
): Promise<string[]> {
  if (!text) return [];
  const { text: redacted, findings } = await redactSecrets(text);
  if (findings.length === 0) return [];
  const rules = [...new Set(findings.map((f) => f.ruleId))].join(", ");
  const shown = excerpts(redacted).slice(0, 3).join(" … ");
  return [`secret in ${label} (${rules}): ${shown}`];
}

/** One reason per redacted place in the diff, naming the file from the nearest `+++` header. */
export async function diffSecretReasons(diff: string | undefined): Promise<string[]> {
  if (!diff) return [];
  const { text: redacted, findings } = await redactSecrets(diff);
  if (findings.length === 0) return [];
  const reasons: string[] = [];
  for (const match of redacted.matchAll(MARKER)) {
    const at = match.index;
    const lineStart = redacted.lastIndexOf("\n", at) + 1;
    const lineEnd = redacted.indexOf("\n", at);
    const line = redacted.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    const file = diffFileAt(redacted, lineStart);
    const rule = match[0].slice("[REDACTED:".length, -1);
    reasons.push(
      `secret in the diff${file ? ` in ${clip(file, 200)}` : ""} (${rule}): ${around(line, at - lineStart, match[0].length)}`,
    );
  }
  return cap(reasons);
}

/** The file of the `+++ b/<path>` header above `lineStart`, or "" before any header. */
function diffFileAt(diff: string, lineStart: number): string {
  const found = diff.lastIndexOf("\n+++ ", lineStart - 1);
  const header = found === -1 ? (diff.startsWith("+++ ") ? 0 : -1) : found + 1;
  if (header === -1) return "";
  const end = diff.indexOf("\n", header);
  return diff.slice(header + 4, end === -1 ? undefined : end).replace(/^b\//, "");
}

/** Context around every marker of an already redacted text, JSON-quoted (newlines visible). */
function excerpts(redacted: string): string[] {
  return [...redacted.matchAll(MARKER)].map((m) => around(redacted, m.index, m[0].length));
}

function around(text: string, at: number, length: number): string {
  const from = Math.max(0, at - CONTEXT);
  const to = Math.min(text.length, at + length + CONTEXT);
  return `${from > 0 ? "…" : ""}${JSON.stringify(text.slice(from, to))}${to < text.length ? "…" : ""}`;
}

/** Resolves a JSON pointer ("" is the root) in a plain JSON value. */
function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function cap(reasons: string[]): string[] {
  if (reasons.length <= MAX_SECRET_REASONS) return reasons;
  const more = reasons.length - MAX_SECRET_REASONS;
  return [...reasons.slice(0, MAX_SECRET_REASONS), `… and ${more} more places with secrets`];
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
