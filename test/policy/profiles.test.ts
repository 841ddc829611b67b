import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, formatIssue } from "../../src/policy/issues.js";
import {
  loadProfiles,
  mayRunInParallel,
  parseProfile,
  profileToBoxOptions,
  profileToProviderOptions,
} from "../../src/policy/profiles.js";
import { READ_ONLY_ROLES, ROLES } from "../../src/roles/role-names.js";
import { tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

const DIR = join(import.meta.dirname, "../../profiles");
const profiles = loadProfiles(DIR);
const text = (role: string) => readFileSync(join(DIR, `${role}.json`), "utf8");

function refuse(json: string, role?: (typeof ROLES)[number]): string[] {
  try {
    parseProfile(json, "profiles/x.json", role);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map(formatIssue);
    throw error;
  }
  throw new Error("expected the profile to be refused");
}

describe("profiles/<role>.json", () => {
  it("the four committed profiles load and honour the invariants", () => {
    for (const role of ROLES) {
      const p = profiles[role];
      expect(p.role).toBe(role);
      expect(p.sandbox.read_only_repo).toBe(READ_ONLY_ROLES.has(role));
      expect(p.parallel_eligible).toBe(READ_ONLY_ROLES.has(role));
      expect(p.disallowed_tools).toContain("Bash(git push:*)");
      // R2.2: npx and uvx fetch and run arbitrary packages.
      expect(p.allowed_tools.some((t) => /npx|uvx/.test(t))).toBe(false);
      expect(p.disallowed_tools).toEqual(expect.arrayContaining(["Bash(npx:*)", "Bash(uvx:*)"]));
    }
    expect(profiles.builder.model_tier_default).toBe("balanced");
    expect(profiles.reviewer.model_tier_default).toBe("deep");
  });

  it("refuses an unknown field with its position and the nearest valid field", () => {
    const json = text("builder").replace('"max_turns"', '"max_turn"');
    const [line] = refuse(json);
    expect(line).toMatch(
      /^profiles\/x\.json:\d+:3: unknown key "max_turn" — did you mean "max_turns"\?$/,
    );
  });

  it("refuses seed fields this runner does not honour (e.g. permission_mode)", () => {
    const p = JSON.parse(text("builder"));
    p.permission_mode = "bypassPermissions";
    expect(refuse(JSON.stringify(p, null, 2))[0]).toContain('unknown key "permission_mode"');
  });

  it("refuses a read-only role with a writable repository", () => {
    const p = JSON.parse(text("reviewer"));
    p.sandbox.read_only_repo = false;
    p.parallel_eligible = false;
    expect(refuse(JSON.stringify(p, null, 2))[0]).toContain("sandbox.read_only_repo must be true");
  });

  it("refuses a writer that is parallel-eligible (single-writer rule)", () => {
    const p = JSON.parse(text("builder"));
    p.parallel_eligible = true;
    expect(refuse(JSON.stringify(p, null, 2))[0]).toContain("parallel_eligible: false");
  });

  it("refuses a model name where a tier belongs, and paths leaving the workspace", () => {
    const p = JSON.parse(text("builder"));
    p.model_tier_default = "opus";
    p.sandbox.write_subpaths = ["../../home"];
    const lines = refuse(JSON.stringify(p, null, 2));
    expect(lines.join("\n")).toContain('one of "fast", "balanced", "deep"');
    expect(lines.join("\n")).toContain("sandbox.write_subpaths[0]");
  });

  it("refuses a file for another role, and bad JSON with a position", () => {
    expect(refuse(text("builder"), "reviewer")[0]).toContain("the file is for reviewer");
    expect(refuse('{\n  "name": "builder",\n}\n')[0]).toMatch(
      /^profiles\/x\.json:3:1: not valid JSON/,
    );
  });

  it("loadProfiles reports every broken file at once", () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    mkdirSync(dir, { recursive: true });
    for (const role of ROLES) writeFileSync(join(dir, `${role}.json`), text(role));
    writeFileSync(join(dir, "architect.json"), text("architect").replace('"cli"', '"clii"'));
    writeFileSync(join(dir, "security.json"), "{}");
    try {
      loadProfiles(dir);
      throw new Error("expected a ConfigError");
    } catch (error) {
      const files = new Set((error as ConfigError).issues.map((i) => i.file.split("/").pop()));
      expect([...files].sort()).toEqual(["architect.json", "security.json"]);
    }
  });
});

describe("profile mappings the runner calls", () => {
  const tiers = { fast: "haiku", balanced: "sonnet", deep: "opus" };

  it("profileToProviderOptions: tier → model, ceilings → options", () => {
    expect(profileToProviderOptions(profiles.builder, tiers)).toEqual({
      model: "sonnet",
      maxTurns: profiles.builder.max_turns,
      maxBudgetUsd: profiles.builder.max_budget_usd,
    });
    expect(profileToProviderOptions(profiles.reviewer, {}).model).toBeUndefined();
  });

  it("a repository budget can lower a profile's ceiling, never raise it", () => {
    const turns = profiles.builder.max_turns as number;
    expect(
      profileToProviderOptions(profiles.builder, tiers, { maxTurns: 5, maxBudgetUsd: 0.5 }),
    ).toMatchObject({
      maxTurns: 5,
      maxBudgetUsd: 0.5,
    });
    expect(
      profileToProviderOptions(profiles.builder, tiers, { maxTurns: turns + 1000 }).maxTurns,
    ).toBe(turns);
  });

  it("profileToBoxOptions mirrors the sandbox block", () => {
    expect(profileToBoxOptions(profiles.reviewer)).toEqual({
      readOnlyRepo: true,
      writeSubpaths: [],
      denySubpaths: [],
      allowNetwork: false,
    });
    expect(profileToBoxOptions(profiles.builder)).toMatchObject({
      readOnlyRepo: false,
      denySubpaths: [".git/hooks"],
    });
  });

  it("mayRunInParallel: readers together, never a writer with anyone", () => {
    expect(mayRunInParallel(profiles.reviewer, profiles.security)).toBe(true);
    expect(mayRunInParallel(profiles.builder, profiles.reviewer)).toBe(false);
    expect(mayRunInParallel(profiles.builder, profiles.builder)).toBe(false);
    // A hand-built writer that claims parallel eligibility still cannot pair.
    const sneaky = { ...profiles.builder, parallel_eligible: true };
    expect(mayRunInParallel(sneaky, profiles.reviewer)).toBe(false);
  });
});
