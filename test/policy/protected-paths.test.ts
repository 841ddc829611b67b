import { describe, expect, it } from "vitest";
import { DEFAULT_PROTECTED_PATHS, touchesProtected } from "../../src/policy/protected-paths.js";

const P = DEFAULT_PROTECTED_PATHS;

describe("touchesProtected: the gate's one question", () => {
  it("the defaults cover forge's own steering files and CI", () => {
    const touched = [
      ".github/workflows/ci.yml",
      ".github/workflows/nested/x.yaml",
      ".github/forge.yml",
      "CODEOWNERS",
      ".github/CODEOWNERS",
      "docs/CODEOWNERS",
      ".claude/settings.json",
      ".claude/agents/builder.md",
      "pkg/.claude/settings.json",
      "scripts/verify.sh",
      ".github/actions/setup/action.yml",
      ".gitmodules",
      // The files verify and the controls execute (verify-inputs.ts) are protected too.
      "scripts/build.sh",
      "Makefile",
      "package.json",
    ];
    for (const file of touched) expect(touchesProtected([file], P).touched, file).toBe(true);
    const free = [
      "src/index.ts",
      "README.md",
      ".github/ISSUE_TEMPLATE/bug.md",
      "lib/scripts/build.sh",
      "claude.md",
    ];
    for (const file of free) expect(touchesProtected([file], P).touched, file).toBe(false);
  });

  it("returns the matching files in input order", () => {
    expect(touchesProtected(["a.ts", "CODEOWNERS", "b.ts", ".github/forge.yml"], P)).toEqual({
      touched: true,
      files: ["CODEOWNERS", ".github/forge.yml"],
    });
    expect(touchesProtected([], P)).toEqual({ touched: false, files: [] });
  });

  it("ignores case, so a case-insensitive checkout cannot slip a file past", () => {
    expect(touchesProtected(["codeowners", ".GitHub/Workflows/ci.yml"], P).files).toHaveLength(2);
  });

  it("normalises ./ and duplicate slashes; a path leaving the repository counts as touched", () => {
    expect(touchesProtected(["./.github//forge.yml"], P).touched).toBe(true);
    for (const odd of ["../outside", "/etc/passwd", "a/../../b", "", "x\ny"]) {
      expect(touchesProtected([odd], P).touched, JSON.stringify(odd)).toBe(true);
    }
  });

  it("a negated pattern can never un-protect, wherever it comes from", () => {
    const patterns = [...P, "!CODEOWNERS", "!.github/workflows/ci.yml", " !scripts/verify.sh"];
    expect(
      touchesProtected(["CODEOWNERS", ".github/workflows/ci.yml", "scripts/verify.sh"], patterns)
        .files,
    ).toHaveLength(3);
  });

  it("repository additions use gitignore syntax", () => {
    const patterns = [...P, "db/migrations/", "*.tf", "/infra"];
    expect(touchesProtected(["db/migrations/001.sql"], patterns).touched).toBe(true);
    expect(touchesProtected(["modules/net/main.tf"], patterns).touched).toBe(true);
    expect(touchesProtected(["infra/x.yaml"], patterns).touched).toBe(true);
    expect(touchesProtected(["src/infra/x.yaml"], patterns).touched).toBe(false);
  });
});
