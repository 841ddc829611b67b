import { describe, expect, it } from "vitest";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";
import { ConfigError, formatIssue } from "../../src/policy/issues.js";

function errors(text: string): string[] {
  try {
    parseForgeConfig(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map(formatIssue);
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("parseForgeConfig", () => {
  it("names file, line and column of an unknown key and suggests the nearest valid one", () => {
    const text = "labels:\n  change: forge\nsetup: []\n\nvaldate:\n  test: { run: make test }\n";
    expect(errors(text)).toEqual([
      '.github/forge.yml:5:1: unknown key "valdate" — did you mean "validate"?',
    ]);
  });

  it("suggests within nested blocks, with the column of the key", () => {
    expect(errors("budgets:\n  max_turn: 3\n")).toEqual([
      '.github/forge.yml:2:3: unknown key "max_turn" — did you mean "max_turns"?',
    ]);
  });

  it("lists the valid keys when nothing is close", () => {
    const [line] = errors("chains:\n  zzzzzzzz: {}\n");
    expect(line).toContain('unknown key "zzzzzzzz"');
    expect(line).toContain("the keys allowed here are: change, review");
  });

  it("reports every problem, not the first only, sorted by position", () => {
    const lines = errors(
      "validate:\n  test:\n    run: 1\n    advisory: maybe\nbudgets:\n  request_budget: 0\n",
    );
    expect(lines.map((l) => l.split(": ")[0])).toEqual([
      ".github/forge.yml:3:10",
      ".github/forge.yml:4:15",
      ".github/forge.yml:6:19",
    ]);
    expect(lines[2]).toContain("use a value that is at least 1");
  });

  it("treats YAML 1.1 booleans as strings and says so", () => {
    const [line] = errors("validate:\n  test: { run: x, advisory: on }\n");
    expect(line).toContain("expected true or false");
    expect(line).toContain("yes/no/on/off are strings");
  });

  it("refuses protected-path removal keys with the rule, not a spelling hint", () => {
    for (const key of ["protected_paths_remove", "unprotected_paths", "protected_paths_exclude"]) {
      const [line] = errors(`${key}: [CODEOWNERS]\n`);
      expect(line).toContain("protected paths are additive");
      expect(line).not.toContain("did you mean");
    }
    // …but a plain typo of protected_paths still gets the suggestion.
    expect(errors("protected_path: [x]\n")[0]).toContain('did you mean "protected_paths"?');
  });

  it("refuses keys that try to switch the floor off", () => {
    expect(errors("skip_floor: true\n")[0]).toContain("cannot be switched off");
  });

  it("refuses unknown built-ins and a handbook ref that can move", () => {
    expect(errors("validate:\n  x: { run: 'forge:nope' }\n")[0]).toContain("unknown built-in");
    expect(errors("handbook: { repo: a/b, ref: v1.2.3 }\n")[0]).toContain("full commit sha");
  });

  it("refuses model ids that could be read as a flag", () => {
    expect(errors("provider:\n  models: { deep: --dangerously-skip-permissions }\n")[0]).toContain(
      "provider.models.deep",
    );
  });

  it("refuses component folders outside the repository", () => {
    for (const dir of ["../x", "/etc", "a/../../b", "./web", ""]) {
      const text = `components:\n  ${JSON.stringify(dir)}:\n    setup: [make]\n`;
      expect(errors(text)[0], dir).toContain("invalid name");
    }
  });

  it("positions YAML syntax errors", () => {
    expect(errors("a:\n\tb: 1\n")[0]).toMatch(/^\.github\/forge\.yml:2:1: malformed YAML/);
    expect(errors("validate:\n  test:\n   run: x\n  lint: y\n z: 1\n")[0]).toMatch(
      /^\.github\/forge\.yml:\d+:\d+: malformed YAML/,
    );
  });

  it("refuses custom tags instead of resolving them", () => {
    expect(errors("setup: !!js/function 'function(){}'\n")[0]).toContain("malformed YAML");
  });

  it("refuses an alias bomb", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(
        `${next}: &${next} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
      );
    }
    expect(errors(`${lines.join("\n")}\n`)[0]).toContain("malformed YAML");
  });

  it("refuses a file that is too large", () => {
    expect(errors(`# ${"x".repeat(300 * 1024)}\n`)[0]).toContain("larger than");
  });

  it("accepts an empty file and a comment-only file as an empty config", () => {
    expect(parseForgeConfig("").config).toEqual({});
    expect(parseForgeConfig("# nothing yet\n").config).toEqual({});
  });

  it("accepts every documented key", () => {
    const parsed = parseForgeConfig(
      [
        "labels: { change: forge, review: 'forge:review' }",
        "chains: { change: { enabled: true }, review: { enabled: false, events: [opened] } }",
        "setup: [npm ci]",
        "validate:",
        "  test: { run: npm test }",
        "  security: { run: 'forge:secret-scan', advisory: true }",
        "components: { web: { setup: [npm ci], validate: { test: { run: npm test } } } }",
        "protected_paths: [db/migrations/**]",
        "handbook: { repo: acme/handbook, ref: 0123456789abcdef0123456789abcdef01234567 }",
        "provider: { name: claude, models: { fast: haiku, balanced: sonnet, deep: opus } }",
        "budgets: { max_turns: 10, max_budget_usd: 1.5, request_budget: 1 }",
        "review: { max_diff_bytes: 524288 }",
        "trusted: [octocat]",
        "roles: { enabled: [docs], skills: { builder: [tdd] }, allowed_tools: { reviewer: [Read] } }",
      ].join("\n"),
    );
    expect(parsed.config.validate?.security).toEqual({ run: "forge:secret-scan", advisory: true });
    expect(parsed.locate(["validate", "test"], "key")).toEqual({ line: 5, column: 3 });
  });
});
