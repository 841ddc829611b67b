// What a run adds to the builder's allow list: the preset's and the controls' exact commands
// and the repository's builder.allow, validated where the file says it, in the cascade.
import { describe, expect, it } from "vitest";
import { builderAllowPatterns, splitCommandLine } from "../../src/policy/builder-commands.js";
import { resolveConfig } from "../../src/policy/cascade.js";
import { explain } from "../../src/policy/explain.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";
import { ConfigError, formatIssue } from "../../src/policy/issues.js";

const repo = (text: string) => parseForgeConfig(text);

function refusal(text: string): string[] {
  try {
    parseForgeConfig(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map(formatIssue);
    throw error;
  }
  return [];
}

describe("builder.allow in .github/forge.yml", () => {
  it("adds the repository's patterns after the preset's and the controls' commands", () => {
    const config = resolveConfig({
      rootFiles: ["package.json", "package-lock.json"],
      repo: repo(
        'validate:\n  lint: { run: "npm run lint && tsc --noEmit" }\nbuilder:\n  allow: ["python3 -m unittest *", "make  docs"]\n',
      ),
    });
    expect(config.builder.allow).toEqual([
      { pattern: "npm ci", origin: "preset:node", from: "setup" },
      { pattern: "npm test", origin: "preset:node", from: "validate.test" },
      { pattern: "npm run lint", origin: "repo", from: "validate.lint" },
      { pattern: "tsc --noEmit", origin: "repo", from: "validate.lint" },
      { pattern: "python3 -m unittest *", origin: "repo", from: "builder.allow" },
      { pattern: "make docs", origin: "repo", from: "builder.allow" },
    ]);
    expect(builderAllowPatterns(config)).toContain("python3 -m unittest *");
    expect(config.notices).toEqual([]);
  });

  it("the preset's commands stay when the repository replaces them; components count", () => {
    const config = resolveConfig({
      rootFiles: ["go.mod"],
      repo: repo(
        "setup: [make deps]\nvalidate:\n  test: { run: make test }\ncomponents:\n  web:\n    validate:\n      test: { run: npm test }\n",
      ),
    });
    expect(builderAllowPatterns(config)).toEqual([
      "go mod download",
      "go test ./...",
      "make test",
      "npm test",
    ]);
    // setup: is not for the builder (it runs in its own phase; it may fetch anything)
    expect(builderAllowPatterns(config)).not.toContain("make deps");
  });

  it("explain shows every layer that added commands", () => {
    const config = resolveConfig({
      rootFiles: ["Cargo.toml"],
      repo: repo('builder:\n  allow: ["cargo clippy *"]\n'),
    });
    const e = explain(config, "builder.allow");
    expect(e.origin).toBe("additive");
    expect(e.layers).toEqual([
      { origin: "preset:rust", value: ["cargo fetch", "cargo test"] },
      { origin: "repo", value: ["cargo clippy *"] },
    ]);
    expect(e.note).toMatch(/deny rules and the guard still win/);
  });

  it("a control the builder may not run is left out, with a warning at its line", () => {
    const config = resolveConfig({
      rootFiles: [],
      repo: repo(
        "validate:\n  test: { run: \"make test && pytest -k 'not slow'\" }\n  e2e: { run: docker compose run tests }\n",
      ),
    });
    expect(builderAllowPatterns(config)).toEqual(["make test"]);
    expect(config.notices.map(formatIssue)).toEqual([
      `.github/forge.yml:2:16: warning: validate.test runs "pytest -k 'not slow'", which the builder may not run itself: it contains "'", which builder.allow does not accept — the control still runs after the builder; to let the builder run it too, add "pytest -k *" under builder.allow`,
      '.github/forge.yml:3:15: warning: validate.e2e runs "docker compose run tests", which the builder may not run itself: it covers commands the builder may never run (denied: Bash(docker *)) — the control still runs after the builder; the builder cannot run it itself',
    ]);
  });

  it("a built-in control is run by the runner, not added", () => {
    const config = resolveConfig({
      rootFiles: [],
      repo: repo("validate:\n  test: { run: make }\n"),
    });
    expect(builderAllowPatterns(config)).toEqual(["make"]);
  });

  it("refuses entries that would open what every role is denied, each at its line", () => {
    expect(
      refusal(
        'builder:\n  allow:\n    - "curl *"\n    - "git push *"\n    - npx foo\n    - cat .env\n    - "python3 -m unittest *"\n',
      ),
    ).toEqual([
      '.github/forge.yml:3:7: "curl *" covers commands the builder may never run (denied: Bash(curl)) — delete it or narrow it (e.g. "npm run *" rather than "npm *"): network tools, pushes, npx, uvx and the like stay closed to every role',
      '.github/forge.yml:4:7: "git push *": git push is not allowed (the runner pushes) — delete it',
      '.github/forge.yml:5:7: "npx foo" covers commands the builder may never run (denied: Bash(npx *)) — delete it or narrow it (e.g. "npm run *" rather than "npm *"): network tools, pushes, npx, uvx and the like stay closed to every role',
      '.github/forge.yml:6:7: "cat .env" names a secret path (.env, rule: dotenv) — delete it: secret files stay closed to every role',
    ]);
  });

  it("the shape is checked by the schema: a list of strings under builder.allow", () => {
    expect(refusal("builder:\n  allow: make test\n")[0]).toMatch(
      /^\.github\/forge\.yml:2:10: builder\.allow: expected a list/,
    );
    expect(refusal("builder:\n  deny: [make]\n")[0]).toMatch(/unknown key "deny"/);
  });
});

describe("splitCommandLine", () => {
  it.each([
    ["npm test", ["npm test"]],
    ["npm run lint && npm test", ["npm run lint", "npm test"]],
    ["a || b; c | d & e\nf", ["a", "b", "c", "d", "e", "f"]],
    [`pytest -k "a && b" && make`, [`pytest -k "a && b"`, "make"]],
    ["sh -c 'x; y'", ["sh -c 'x; y'"]],
    ["echo a\\;b", ["echo a\\;b"]],
    ["  make   test  ", ["make test"]],
  ])("%j", (text, parts) => {
    expect(splitCommandLine(text)).toEqual(parts);
  });
});
