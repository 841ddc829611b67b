import { describe, expect, it } from "vitest";
import { diffTooLarge } from "../../src/runner/diff-budget.js";

const KiB = 1024;

describe("diffTooLarge: the reviewer and security see the whole diff or the step fails", () => {
  it("is null when the whole diff fits, up to the last byte", () => {
    expect(diffTooLarge("", 256 * KiB)).toBeNull();
    expect(diffTooLarge("x".repeat(256 * KiB), 256 * KiB)).toBeNull();
    // Bytes, not characters: 2 bytes each.
    expect(diffTooLarge("é".repeat(128 * KiB), 256 * KiB)).toBeNull();
    expect(diffTooLarge(`${"é".repeat(128 * KiB)}x`, 256 * KiB)).not.toBeNull();
  });

  it("names the size, the limit and how to raise it", () => {
    const reason = diffTooLarge("x".repeat(312_000), 256 * KiB);
    expect(reason).toBe(
      "diff too large to review: the diff is 304.7 KiB (312000 bytes), over the 256 KiB limit of " +
        "what the reviewer and security are shown, and forgechain never shows them part of a change. " +
        "Split the change into smaller ones, or raise `review.max_diff_bytes` in .github/forge.yml (at most 2 MiB).",
    );
    expect(reason).not.toMatch(/\bR\d/);
  });

  it("one byte over reads as over, never as equal to the limit", () => {
    expect(diffTooLarge("x".repeat(256 * KiB + 1), 256 * KiB)).toContain(
      "the diff is 256.1 KiB (262145 bytes), over the 256 KiB limit",
    );
  });

  it("at the ceiling, says that splitting is the only way", () => {
    const reason = diffTooLarge("x".repeat(2 * KiB * KiB + 1), 2 * KiB * KiB) ?? "";
    expect(reason).toContain("the limit is already the largest forgechain allows (2 MiB)");
    expect(reason).not.toContain("raise");
  });

  it("refuses a limit that would let everything through", () => {
    for (const bad of [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      expect(() => diffTooLarge("x", bad), String(bad)).toThrow(RangeError);
    }
  });
});
