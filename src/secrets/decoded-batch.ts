import type { EncodedRun } from "./encoded-runs.js";
import type { SecretFinding } from "./scan.js";

/**
 * At most this many decoded characters are appended to one scan, to bound one scan's work
 * whatever it is given. A run decodes to fewer characters than it has, and every text
 * forgechain scans whole is smaller (a transcript is cut to 512 KiB, a tracked file to 2 MiB,
 * even one whose inline source map is all base64), so only a diff with over 5 MiB of encoded
 * text reaches it. From the first run that does not fit, nothing more is appended, and each
 * run that decoded to text is reported as `encoded-unscanned`: it is redacted and fails a
 * verdict like a secret, because what was not scanned may hold one (fail closed). Nothing
 * throws over it.
 */
export const MAX_DECODED_CHARS = 4 * 1024 * 1024;
// Two line breaks: no rule matches across an empty line, so no finding spans two runs.
const SEPARATOR = "\n\n";

export interface DecodedBatch {
  /** The scanned text, then each decoded run after a separator. */
  content: string;
  /** Where each decoded run sits in `content`. */
  segments: { from: number; to: number; run: EncodedRun }[];
  /** Runs past MAX_DECODED_CHARS. */
  unscanned: SecretFinding[];
}

export function batchDecoded(text: string, runs: EncodedRun[]): DecodedBatch {
  const parts = [text];
  const segments: DecodedBatch["segments"] = [];
  const unscanned: SecretFinding[] = [];
  let length = text.length;
  let decoded = 0;
  let full = false;
  for (const run of runs) {
    full ||= decoded + run.decoded.length > MAX_DECODED_CHARS;
    if (full) {
      unscanned.push({
        ruleId: "encoded-unscanned",
        messageId: "EncodedUnscanned",
        start: run.start,
        end: run.end,
        message: `a ${run.encoding}-encoded run past the limit of ${MAX_DECODED_CHARS} decoded characters per scan was not scanned`,
      });
      continue;
    }
    decoded += run.decoded.length;
    const from = length + SEPARATOR.length;
    parts.push(SEPARATOR, run.decoded);
    length = from + run.decoded.length;
    segments.push({ from, to: length, run });
  }
  return { content: parts.join(""), segments, unscanned };
}
