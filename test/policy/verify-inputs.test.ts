import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/cascade.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";
import {
  DEFAULT_PROTECTED_PATHS,
  FORGE_STEERING_PATHS,
  touchesProtected,
} from "../../src/policy/protected-paths.js";
import {
  codeSpan,
  DEFAULT_VERIFY_INPUTS,
  verifyInputsNotice,
  verifyInputsTouched,
} from "../../src/policy/verify-inputs.js";

// Files a verify script or a control executes: what "verify from base" cannot vouch for.
const EXECUTED = [
  "Makefile",
  "makefile",
  "GNUmakefile",
  "web/Makefile",
  "build/rules.mk",
  "Justfile",
  "Taskfile.yml",
  "Rakefile",
  "scripts/test.sh",
  "scripts/ci/run.py",
  "package.json",
  "web/package.json",
  ".npmrc",
  ".yarnrc.yml",
  "jest.config.js",
  "vitest.config.ts",
  "web/vitest.workspace.mts",
  "vite.config.mjs",
  ".mocharc.yml",
  "karma.conf.js",
  "playwright.config.ts",
  "babel.config.cjs",
  ".babelrc",
  "pytest.ini",
  "conftest.py",
  "tests/unit/conftest.py",
  "tox.ini",
  "noxfile.py",
  "setup.cfg",
  "setup.py",
  "pyproject.toml",
  "Cargo.toml",
  "crates/core/Cargo.toml",
  "build.rs",
  ".cargo/config.toml",
  "crates/core/.cargo/config",
  "rust-toolchain.toml",
];

// Code the tests run anyway, or files that steer nothing verify runs.
const NOT_EXECUTED = [
  "src/index.ts",
  "src/package.ts",
  "test/greet.test.ts",
  "tests/test_greet.py",
  "README.md",
  "docs/Makefile.md",
  "lib/scripts/build.sh",
  "src/scripts.ts",
  "go.mod",
  "main.go",
  "package-lock.json",
];

describe("verifyInputsTouched", () => {
  it("names the files verify and the controls execute, in input order", () => {
    for (const file of EXECUTED) expect(verifyInputsTouched([file]), file).toEqual([file]);
    for (const file of NOT_EXECUTED) expect(verifyInputsTouched([file]), file).toEqual([]);
    expect(verifyInputsTouched(["src/a.ts", "package.json", "README.md", "Makefile"])).toEqual([
      "package.json",
      "Makefile",
    ]);
  });

  it("matches like the gate: case-insensitive, and fail-closed on paths outside the repository", () => {
    expect(verifyInputsTouched(["PACKAGE.JSON", "Scripts/Test.sh"])).toHaveLength(2);
    for (const odd of ["../Makefile", "/etc/passwd", "", "a\nb"]) {
      expect(verifyInputsTouched([odd]), JSON.stringify(odd)).toEqual([odd]);
    }
  });

  it("takes other patterns, and a negation never un-matches", () => {
    expect(verifyInputsTouched(["ci/run.sh", "x.ts"], ["ci/**"])).toEqual(["ci/run.sh"]);
    expect(verifyInputsTouched(["Makefile"], [...DEFAULT_VERIFY_INPUTS, "!Makefile"])).toEqual([
      "Makefile",
    ]);
  });
});

describe("verify inputs are protected by default", () => {
  it("every one of them needs an approval at the gate", () => {
    for (const file of EXECUTED) {
      expect(touchesProtected([file], DEFAULT_PROTECTED_PATHS).touched, file).toBe(true);
    }
    // The steering files are all still there, and each pattern is listed once.
    for (const p of FORGE_STEERING_PATHS) expect(DEFAULT_PROTECTED_PATHS).toContain(p);
    expect(new Set(DEFAULT_PROTECTED_PATHS).size).toBe(DEFAULT_PROTECTED_PATHS.length);
  });

  it("are in every resolved config with the deployment's origin; a repository cannot remove one", () => {
    const config = resolveConfig({
      rootFiles: ["package.json"],
      repo: parseForgeConfig("protected_paths: ['!package.json', '!Makefile', '!scripts/**']\n"),
    });
    for (const pattern of DEFAULT_VERIFY_INPUTS) {
      expect(config.protectedPaths).toContainEqual({ pattern, origin: "deployment" });
    }
    const patterns = config.protectedPaths.map((p) => p.pattern);
    expect(touchesProtected(["package.json", "Makefile", "scripts/t.sh"], patterns).files).toEqual([
      "package.json",
      "Makefile",
      "scripts/t.sh",
    ]);
    expect(config.notices.filter((n) => n.code === "unprotect_ignored")).toHaveLength(3);
  });
});

describe("verifyInputsNotice", () => {
  it("names the files and what their change means, without spec numbers", () => {
    expect(verifyInputsNotice([])).toBeNull();
    const text = verifyInputsNotice(["Makefile", "package.json"], "/forge approve run1");
    expect(text).toBe(
      "Files that verify or the controls execute were changed: `Makefile`, `package.json`. " +
        "The base's verify script and the controls ran the builder's version of them, so their " +
        "passing is not independent evidence; a maintainer must approve with `/forge approve run1`.",
    );
    expect(text).not.toMatch(/\bR\d/);
  });

  it("lists at most 20 names and counts the rest", () => {
    const files = Array.from({ length: 23 }, (_, i) => `scripts/s${i}.sh`);
    const text = verifyInputsNotice(files) ?? "";
    expect(text).toContain("`scripts/s19.sh` and 3 more.");
    expect(text).not.toContain("s20.sh");
  });

  it("shows a builder's file name as one code span it cannot close", () => {
    expect(codeSpan("a`b")).toBe("``a`b``");
    expect(codeSpan("`x")).toBe("`` `x ``");
    const evil = "scripts/x`\n\n@admin <img src=x>.sh";
    const text = verifyInputsNotice([evil]) ?? "";
    expect(text).not.toContain("\n");
    expect(text).toContain("``scripts/x`??@admin <img src=x>.sh``");
  });
});
