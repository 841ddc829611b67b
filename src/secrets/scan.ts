// Silences secretlint's profiler (it marks only inside lintSource, never at import).
import "./quiet-profiler.js";
import { lintSource } from "@secretlint/core";
import { batchDecoded, type DecodedBatch } from "./decoded-batch.js";
import { findEncodedRuns } from "./encoded-runs.js";
import { awsSecretEnd, findPrivateKeyBlocks } from "./extra-patterns.js";
import { findKnownSecrets } from "./known-secrets.js";
import { RULE_ID_PREFIX, SECRETLINT_CONFIG } from "./secretlint-config.js";

/** One secret found in a text. Never holds the secret itself, only where it is. */
export interface SecretFinding {
  /** Short rule name: secretlint's rule without its prefix (`github`, `aws`) or `forge-…`. */
  ruleId: string;
  /** The rule's message id, e.g. `GITHUB_TOKEN`. */
  messageId: string;
  /** UTF-16 offsets into the scanned text, end exclusive. */
  start: number;
  end: number;
  /** A human-readable description with the secret masked. */
  message: string;
}

/**
 * Finds secrets in a text, in plain text and encoded:
 * - secretlint's recommended rules (see secretlint-config.ts) plus our extra patterns;
 * - every value of this deployment's known secrets (known-secrets.ts) in every encoding;
 * - both of these again in the decoded text of long base64/hex runs (encoded-runs.ts),
 *   reported over the whole run.
 * Findings are sorted by start. secretlint's are all kept; any other finding that lies inside
 * another is dropped as a duplicate.
 */
export async function scanSecrets(text: string): Promise<SecretFinding[]> {
  if (text.length === 0) return [];
  const batch = batchDecoded(text, findEncodedRuns(text));
  // One secretlint call for the text and every decoded run: a call has a fixed cost, and the
  // runs are many small texts.
  const lint = await lintText(batch.content);
  const known = knownSecretFindings(batch.content);
  const inText = (f: SecretFinding) => f.start < text.length;
  const plain = (list: SecretFinding[]) =>
    list.filter(inText).map((f) => ({ ...f, end: Math.min(f.end, text.length) }));
  return withoutDuplicates(plain(lint.rules), [
    ...plain(lint.extras),
    ...[...lint.rules, ...lint.extras, ...known].flatMap((f) => (inText(f) ? [] : onRun(f, batch))),
    ...plain(known),
    ...batch.unscanned,
  ]);
}

/** A finding in a decoded run's text, reported over the whole run in the scanned text. */
function onRun(f: SecretFinding, batch: DecodedBatch): SecretFinding[] {
  // Segments are in content order: the last one starting at or before the finding.
  const { segments } = batch;
  let low = 0;
  let high = segments.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((segments[mid]?.from ?? 0) <= f.start) low = mid;
    else high = mid - 1;
  }
  const segment = segments[low];
  if (!segment || f.start < segment.from || f.start >= segment.to) return []; // a separator
  const { run } = segment;
  const message = `${run.encoding}-encoded run: ${f.message}`;
  return [{ ...f, start: run.start, end: run.end, message }];
}

/**
 * Every finding of `kept`, and each of `more` (in its order of preference) that no other
 * finding covers: a token both a rule and the known values match, several rules' hits in one
 * decoded run. One sweep by start, so a text with thousands of hits stays linear.
 */
function withoutDuplicates(kept: SecretFinding[], more: SecretFinding[]): SecretFinding[] {
  const all = [...kept.map((f) => ({ f, keep: true })), ...more.map((f) => ({ f, keep: false }))];
  // Stable: among equal ranges, secretlint's first, then `more` in its order.
  all.sort((a, b) => a.f.start - b.f.start || b.f.end - a.f.end);
  const out: SecretFinding[] = [];
  let reach = -1;
  for (const { f, keep } of all) {
    if (keep || f.end > reach) out.push(f);
    reach = Math.max(reach, f.end);
  }
  return out;
}

async function lintText(
  text: string,
): Promise<{ rules: SecretFinding[]; extras: SecretFinding[] }> {
  const result = await lintSource({
    source: { filePath: "/forge-output.txt", content: text, ext: ".txt", contentType: "text" },
    // maskSecrets: secretlint puts the matched secret into its messages unless told not to.
    options: { config: SECRETLINT_CONFIG, noPhysicFilePath: true, maskSecrets: true },
  });
  const found: SecretFinding[] = [];
  for (const message of result.messages) {
    let [start, end] = message.range;
    start = clamp(start, text.length);
    end = clamp(end, text.length);
    if (message.ruleId === `${RULE_ID_PREFIX}aws` && message.messageId === "AWSSecretAccessKey") {
      end = Math.max(end, awsSecretEnd(text, start) ?? end);
    }
    if (end <= start) continue;
    found.push({
      ruleId: shortRuleId(message.ruleId),
      messageId: message.messageId,
      start,
      end,
      message: safeMessage(message.message, text.slice(start, end), message.messageId),
    });
  }
  return { rules: found, extras: findPrivateKeyBlocks(text) };
}

function knownSecretFindings(text: string): SecretFinding[] {
  return findKnownSecrets(text).map((m) => ({
    ruleId: "known-secret",
    messageId: "KnownSecret",
    start: m.start,
    end: m.end,
    message: `found a secret value this deployment holds (${m.encoding})`,
  }));
}

function shortRuleId(ruleId: string): string {
  return ruleId.startsWith(RULE_ID_PREFIX) ? ruleId.slice(RULE_ID_PREFIX.length) : ruleId;
}

function clamp(offset: number, length: number): number {
  return Math.min(Math.max(0, Math.trunc(offset)), length);
}

/**
 * secretlint masks its message data as runs of `*` as long as the secret; we shorten the runs
 * (length says something about the secret) and, should a rule ever put the matched text into
 * its message unmasked, fall back to the bare message id.
 */
function safeMessage(message: string, secret: string, messageId: string): string {
  const masked = message.replace(/\*{3,}/g, "***");
  return secret.length >= 4 && masked.includes(secret) ? `found ${messageId}` : masked;
}
