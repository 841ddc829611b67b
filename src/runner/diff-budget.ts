// R4.7: what the reviewer and security judge is the whole diff or nothing. A diff cut to fit
// a prompt lets a change hide its payload behind padding that sorts first (a 312 KB file
// before `src/zz.ts`), and both roles would PASS what they never saw. So a diff over the
// limit fails the step before its agent starts, and says how to get it reviewed.
import { DIFF_LIMIT, FORGE_CONFIG_PATH, formatBytes } from "../policy/index.js";

/** Thrown by buildPrompt when asked to show a diff over its limit: the fail-safe, never a cut. */
export class DiffTooLargeError extends Error {
  override readonly name = "DiffTooLargeError";
  readonly bytes: number;
  readonly limitBytes: number;

  constructor(bytes: number, limitBytes: number) {
    super(tooLargeReason(bytes, limitBytes));
    this.bytes = bytes;
    this.limitBytes = limitBytes;
  }
}

/** The size the limit is measured in: UTF-8 bytes, as the prompt carries them. */
export function diffBytes(diff: string): number {
  return Buffer.byteLength(diff, "utf8");
}

/**
 * null when the whole diff fits in `limitBytes`; otherwise the reason the reviewer or security
 * step FAILs, naming the size, the limit and how to raise it. A limit that is not a positive
 * whole number throws (a NaN limit would otherwise let every diff through).
 */
export function diffTooLarge(diff: string, limitBytes: number): string | null {
  assertLimit(limitBytes);
  const bytes = diffBytes(diff);
  return bytes <= limitBytes ? null : tooLargeReason(bytes, limitBytes);
}

export function assertLimit(limitBytes: number): void {
  if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) {
    throw new RangeError(
      `the diff limit must be a positive whole number of bytes, not ${limitBytes}`,
    );
  }
}

function tooLargeReason(bytes: number, limitBytes: number): string {
  const head =
    `diff too large to review: the diff is ${formatBytes(bytes)} (${bytes} bytes), over the ` +
    `${formatBytes(limitBytes)} limit of what the reviewer and security are shown, and ` +
    "forgechain never shows them part of a change. ";
  const how =
    limitBytes >= DIFF_LIMIT.max
      ? `Split the change into smaller ones: the limit is already the largest forgechain allows (${formatBytes(DIFF_LIMIT.max)}).`
      : `Split the change into smaller ones, or raise \`review.max_diff_bytes\` in ${FORGE_CONFIG_PATH} (at most ${formatBytes(DIFF_LIMIT.max)}).`;
  return head + how;
}
