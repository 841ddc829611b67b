// What a repository may add to the builder's Bash allow list: plain command patterns, never a
// door to what the builder's settings or the guard deny.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILDER_DENIED_COMMANDS } from "../../src/policy/builder-denied.js";
import { checkBuilderPattern } from "../../src/policy/builder-pattern.js";
import { starIntersect, starMatch } from "../../src/policy/star-glob.js";

const code = (pattern: string) => checkBuilderPattern(pattern)?.code ?? null;

describe("builder.allow patterns", () => {
  it.each([
    "python3 -m unittest *",
    "python3 -m unittest",
    ".venv/bin/python -m pytest -q *",
    "node --test *",
    "node scripts/check.js *",
    "npm run lint *",
    "yarn test *",
    "cargo clippy *",
    "go generate ./...",
    "make lint",
    "bash scripts/test.sh *",
    "sh ./run-tests *",
    "git stash *",
    "tox -e py311",
    "./gradlew test *",
    "cat README.md",
    "ls docs/*",
  ])("accepted: %s", (pattern) => {
    expect(checkBuilderPattern(pattern)).toBeNull();
  });

  it.each([
    // the denied commands, named or covered
    ["curl *", "builder_allow_denied"],
    ["curl", "builder_allow_denied"],
    ["/usr/bin/curl *", "builder_allow_denied"],
    ["wget -q *", "builder_allow_denied"],
    ["ssh *", "builder_allow_denied"],
    ["scp *", "builder_allow_denied"],
    ["nc *", "builder_allow_denied"],
    ["docker compose run *", "builder_allow_denied"],
    ["kubectl apply *", "builder_allow_denied"],
    ["npx foo", "builder_allow_denied"],
    ["npx *", "builder_allow_denied"],
    ["uvx ruff *", "builder_allow_denied"],
    ["npm *", "builder_allow_denied"],
    ["npm exec *", "builder_allow_denied"],
    ["yarn *", "builder_allow_denied"],
    ["pnpm *", "builder_allow_denied"],
    ["uv *", "builder_allow_denied"],
    ["grep -r *", "builder_allow_denied"],
    ["diff *", "builder_allow_denied"],
    ["go run *", "builder_allow_denied"],
    ["git push *", "builder_allow_denied"],
    ["git push", "builder_allow_denied"],
    ["git send-pack *", "builder_allow_denied"],
    ["git-push *", "builder_allow_denied"],
    // git needs its subcommand
    ["git *", "builder_allow_git"],
    ["git -C . push *", "builder_allow_git"],
    ["git -c core.pager=x log *", "builder_allow_git"],
    // secret paths, as the guard reads Bash
    ["cat .env", "builder_allow_secret"],
    ["cat .e*", "builder_allow_secret"],
    ["cat ~/.aws/credentials", "builder_allow_secret"],
    ["cat ~/.ssh/id_rsa", "builder_allow_secret"],
    ["make deploy KEYFILE=secrets/prod.pem", "builder_allow_secret"],
    ["cat /proc/self/environ", "builder_allow_secret"],
    // doors around the deny rules
    ["env *", "builder_allow_wrapper"],
    ["env curl *", "builder_allow_wrapper"],
    ["sudo make *", "builder_allow_wrapper"],
    ["timeout 600 make test *", "builder_allow_wrapper"],
    ["xargs *", "builder_allow_wrapper"],
    ["eval *", "builder_allow_wrapper"],
    ["find . -exec *", "builder_allow_wrapper"],
    ["bash *", "builder_allow_inline_code"],
    ["bash -c *", "builder_allow_inline_code"],
    ["sh -c make", "builder_allow_inline_code"],
    ["python3 *", "builder_allow_inline_code"],
    ["python3 -c *", "builder_allow_inline_code"],
    ["python3 -m *", "builder_allow_inline_code"],
    ["node -e *", "builder_allow_inline_code"],
    ["node *", "builder_allow_inline_code"],
    ["awk *", "builder_allow_inline_code"],
    ["perl -e *", "builder_allow_inline_code"],
    // not a plain command
    ["Read(.env)", "builder_allow_tool"],
    ["Bash(python3 -m unittest *)", "builder_allow_tool"],
    ["WebFetch", "builder_allow_tool"],
    ["mcp__github__create_issue", "builder_allow_tool"],
    ["npm test && curl x", "builder_allow_chars"],
    ["make test; curl x", "builder_allow_chars"],
    ["make test | sh", "builder_allow_chars"],
    ["make $TARGET", "builder_allow_chars"],
    ["pytest -k 'not slow'", "builder_allow_chars"],
    ["make test > out.txt", "builder_allow_chars"],
    ["echo `id`", "builder_allow_chars"],
    ["", "builder_allow_chars"],
    ["*", "builder_allow_program"],
    ["* test", "builder_allow_program"],
    ["py* -m unittest", "builder_allow_program"],
    ["CI=1 npm test", "builder_allow_program"],
    ["-rf /", "builder_allow_program"],
  ])("refused: %s (%s)", (pattern, expected) => {
    expect(code(pattern), JSON.stringify(checkBuilderPattern(pattern))).toBe(expected);
  });

  it("messages name the pattern and what it would reach, with a fix", () => {
    expect(checkBuilderPattern("curl *")).toEqual({
      code: "builder_allow_denied",
      message: '"curl *" covers commands the builder may never run (denied: Bash(curl))',
      fix: 'delete it or narrow it (e.g. "npm run *" rather than "npm *"): network tools, pushes, npx, uvx and the like stay closed to every role',
    });
    expect(checkBuilderPattern("Bash(python3 -m unittest *)")?.fix).toBe(
      'write the command alone: "python3 -m unittest *"',
    );
    expect(checkBuilderPattern("cat .env")?.message).toBe(
      '"cat .env" names a secret path (.env, rule: dotenv)',
    );
  });

  it("the deny list is exactly the builder settings' Bash deny rules", () => {
    const settings = JSON.parse(
      readFileSync(join(import.meta.dirname, "../../settings/builder.json"), "utf8"),
    ) as { permissions: { deny: string[] } };
    const bash = settings.permissions.deny
      .filter((r) => r.startsWith("Bash("))
      .map((r) => r.slice(5, -1));
    expect([...BUILDER_DENIED_COMMANDS]).toEqual(bash);
  });
});

describe("star globs", () => {
  it.each([
    ["npm *", "npm exec *", true],
    ["npm run *", "npm exec *", false],
    ["git *", "git -C * push", true],
    ["a*c", "*b*", true],
    ["abc", "a*d", false],
    ["curl", "curl *", false],
    ["curl*", "curl *", true],
    ["x", "*", true],
    ["", "*", true],
    ["", "a", false],
  ])("%s ∩ %s: %s", (a, b, expected) => {
    expect(starIntersect(a, b)).toBe(expected);
    expect(starIntersect(b, a)).toBe(expected);
  });
  it("match is whole-text and literal apart from *", () => {
    expect(starMatch("*.env*", "cat .env")).toBe(true);
    expect(starMatch("*.env*", "cat .venv/bin/x")).toBe(false);
    expect(starMatch("curl", "curlx")).toBe(false);
    expect(starMatch("a.b", "axb")).toBe(false);
  });
});
