// Table test over fixtures/config: every valid fixture resolves to its expected.json (a
// subset of `forge config check --json`), every refused one fails with exactly the lines of
// its expected.txt. The same fixtures run through the real CLI in test/cli/config.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolvedConfigJson } from "../../src/policy/config-report.js";
import { ConfigError, formatIssue } from "../../src/policy/issues.js";
import { loadProfiles } from "../../src/policy/profiles.js";
import { loadRepoPolicy } from "../../src/policy/repo-policy.js";
import { gitRunner } from "./helpers.js";

const ROOT = join(import.meta.dirname, "../../fixtures/config");
const list = (kind: string) => readdirSync(join(ROOT, kind)).sort();
const profiles = loadProfiles(join(import.meta.dirname, "../../profiles"));

async function check(dir: string) {
  const policy = await loadRepoPolicy(dir, { git: gitRunner(dir), profiles });
  const { source, config, registry, warnings } = policy;
  const meta = {
    file: ".github/forge.yml",
    from: source.from,
    ref: source.ref,
    found: source.text !== null,
    note: source.note,
  };
  return JSON.parse(JSON.stringify(resolvedConfigJson(config, registry, meta, warnings)));
}

describe("valid fixtures resolve as expected", () => {
  it("has fixtures", () => expect(list("valid").length).toBeGreaterThanOrEqual(5));
  for (const name of list("valid")) {
    it(name, async () => {
      const dir = join(ROOT, "valid", name);
      const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
      const actual = await check(dir);
      expect(actual).toMatchObject(expected);
      // Every warning is listed: none may appear that the fixture does not expect.
      expect(actual.warnings.map((w: { text: string }) => w.text)).toEqual(
        expected.warnings.map((w: { text: string }) => w.text),
      );
      // The floor holds for every valid config.
      const names = actual.controls.map((c: { id: string }) => c.id);
      expect(names).toContain("test");
      expect(names).toContain("security");
    });
  }
});

describe("refused fixtures fail with the expected messages", () => {
  it("has fixtures", () => expect(list("refused").length).toBeGreaterThanOrEqual(10));
  for (const name of list("refused")) {
    it(name, async () => {
      const dir = join(ROOT, "refused", name);
      const expected = readFileSync(join(dir, "expected.txt"), "utf8").trimEnd().split("\n");
      const error = await check(dir).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      const lines = (error as ConfigError).issues.map(formatIssue);
      expect(lines).toEqual(expected);
      // Every error names the file, and (when the file exists) the line and column.
      for (const issue of (error as ConfigError).issues) {
        expect(issue.file).toBe(".github/forge.yml");
        expect(issue.fix, `${name}: every error carries a fix`).toBeTruthy();
        if (name !== "no-config") expect(issue.line).toBeGreaterThan(0);
      }
    });
  }
});
