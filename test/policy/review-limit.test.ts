import { describe, expect, it } from "vitest";
import { formatBytes } from "../../src/policy/byte-size.js";
import { resolveConfig } from "../../src/policy/cascade.js";
import { formatResolvedConfig, resolvedConfigJson } from "../../src/policy/config-report.js";
import { DEFAULT_DEPLOYMENT } from "../../src/policy/deployment.js";
import { explain } from "../../src/policy/explain.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";
import { DIFF_LIMIT } from "../../src/policy/forge-config-schema.js";
import { ConfigError, formatIssue } from "../../src/policy/issues.js";
import type { FrozenRegistry } from "../../src/policy/registry.js";

// `review.max_diff_bytes`: how much diff the reviewer and security are shown whole.

function errors(text: string): string[] {
  try {
    parseForgeConfig(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map(formatIssue);
    throw error;
  }
  throw new Error("expected the config to be refused");
}

const EXPECTED =
  "(expected the largest diff in bytes the reviewer and security are shown whole (a larger change fails before they start): 16384 (16 KiB) to 2097152 (2 MiB), default 262144 (256 KiB))";
const FIX =
  "— use a whole number of bytes from 16384 (16 KiB) to 2097152 (2 MiB), e.g. max_diff_bytes: 524288 for 512 KiB";

describe("review.max_diff_bytes: validated with a position and a fix", () => {
  it("refuses a value under the floor", () => {
    expect(errors("review:\n  max_diff_bytes: 1024\n")).toEqual([
      `.github/forge.yml:2:19: review.max_diff_bytes: number 1024 is too small ${EXPECTED} ${FIX}`,
    ]);
  });

  it("refuses a value over the ceiling", () => {
    expect(errors("review:\n  max_diff_bytes: 4194304\n")).toEqual([
      `.github/forge.yml:2:19: review.max_diff_bytes: number 4194304 is too large ${EXPECTED} ${FIX}`,
    ]);
  });

  it("refuses a fraction and a string, saying what a whole number of bytes looks like", () => {
    expect(errors("review: { max_diff_bytes: 300000.5 }\n")).toEqual([
      `.github/forge.yml:1:27: review.max_diff_bytes: expected a whole number, got number 300000.5 ${EXPECTED} ${FIX}`,
    ]);
    expect(errors("review: { max_diff_bytes: 512k }\n")).toEqual([
      `.github/forge.yml:1:27: review.max_diff_bytes: expected a number, got the string "512k" ${EXPECTED} ${FIX}`,
    ]);
  });

  it("refuses an unknown key under review with the nearest valid one", () => {
    expect(errors("review:\n  max_diff_byte: 300000\n")).toEqual([
      '.github/forge.yml:2:3: unknown key "max_diff_byte" — did you mean "max_diff_bytes"?',
    ]);
  });

  it("accepts both ends of the range", () => {
    for (const n of [DIFF_LIMIT.min, DIFF_LIMIT.max]) {
      expect(parseForgeConfig(`review: { max_diff_bytes: ${n} }\n`).config.review).toEqual({
        max_diff_bytes: n,
      });
    }
  });
});

describe("review.max_diff_bytes: a cascaded scalar with its origin", () => {
  it("is the deployment's 256 KiB unless the repository says otherwise", () => {
    expect(DEFAULT_DEPLOYMENT.review.max_diff_bytes).toBe(256 * 1024);
    expect(resolveConfig({ rootFiles: ["Cargo.toml"] }).review.maxDiffBytes).toEqual({
      value: 262144,
      origin: "deployment",
    });
  });

  it("the repository can raise or lower it within the range; explain shows both layers", () => {
    for (const n of [32768, 1048576]) {
      const config = resolveConfig({
        rootFiles: ["Cargo.toml"],
        repo: parseForgeConfig(`review:\n  max_diff_bytes: ${n}\n`),
      });
      expect(config.review.maxDiffBytes).toEqual({ value: n, origin: "repo" });
      const e = explain(config, "review.max_diff_bytes");
      expect(e.value).toBe(n);
      expect(e.layers).toEqual([
        { origin: "deployment", value: 262144 },
        { origin: "repo", value: n },
      ]);
    }
  });

  it("`forge config check` shows it, in JSON and for people", () => {
    const config = resolveConfig({
      rootFiles: ["Cargo.toml"],
      repo: parseForgeConfig("review: { max_diff_bytes: 524288 }\n"),
    });
    const registry = {
      roles: {},
      revision: 1,
      digest: "0".repeat(64),
    } as unknown as FrozenRegistry;
    const source = {
      file: ".github/forge.yml",
      from: "git" as const,
      ref: "main",
      found: true,
      note: "",
    };
    expect(resolvedConfigJson(config, registry, source, []).review).toEqual({
      maxDiffBytes: { value: 524288, origin: "repo" },
    });
    expect(formatResolvedConfig(config, registry, source, [])).toContain(
      "review: diffs up to 512 KiB (524288 bytes) are shown whole, larger ones fail  [repo]",
    );
  });
});

describe("formatBytes", () => {
  it("rounds up, so a size just over a limit never reads as the limit", () => {
    expect(formatBytes(900)).toBe("900 bytes");
    expect(formatBytes(262144)).toBe("256 KiB");
    expect(formatBytes(262145)).toBe("256.1 KiB");
    expect(formatBytes(312000)).toBe("304.7 KiB");
    expect(formatBytes(2 * 1024 * 1024)).toBe("2 MiB");
  });
});
