// Silences secretlint's profiler (it marks only inside lintSource, never at import).
import "./quiet-profiler.js";
import { lintSource } from "@secretlint/core";
import { awsSecretEnd, findPrivateKeyBlocks } from "./extra-patterns.js";
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
 * Finds secrets with secretlint's recommended rules (see secretlint-config.ts) plus our extra
 * patterns. Findings are sorted by start; a finding of an extra pattern that lies inside a
 * secretlint finding is dropped as a duplicate.
 */
export async function scanSecrets(text: string): Promise<SecretFinding[]> {
  if (text.length === 0) return [];
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
  for (const extra of findPrivateKeyBlocks(text)) {
    if (!found.some((f) => f.start <= extra.start && extra.end <= f.end)) found.push(extra);
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
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
