import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProfiles } from "../../src/policy/profiles.js";
import {
  freezeRegistry,
  type RoleDocument,
  RoleDocumentSchema,
} from "../../src/policy/registry.js";
import { defaultRoleDocument } from "../../src/policy/registry-default.js";

const profiles = loadProfiles(join(import.meta.dirname, "../../profiles"));
const doc = (): RoleDocument => defaultRoleDocument(profiles);
const handbook = { repo: "acme/handbook", ref: "0".repeat(40) };

describe("freezeRegistry (seed 004, R8.5)", () => {
  it("freezes the four mandatory roles by default, docs off", () => {
    const frozen = freezeRegistry(doc(), {}, { handbook });
    expect(Object.keys(frozen.roles)).toEqual(["architect", "builder", "reviewer", "security"]);
    expect(frozen.revision).toBe(1);
    expect(frozen.requestBudget).toBe(3);
    expect(frozen.roles.builder?.instructions).toEqual({
      ...handbook,
      source: "handbook",
      path: "docs/agents/seeds/builder.md",
    });
    expect(frozen.roles.builder?.allowed_tools).toEqual(profiles.builder.allowed_tools);
    expect(frozen.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(frozen.notices).toEqual([]);
  });

  it("falls back to the repository's .claude/agents/<role>.md without a handbook (R2.3)", () => {
    expect(freezeRegistry(doc()).roles.reviewer?.instructions).toEqual({
      source: "repository",
      path: ".claude/agents/reviewer.md",
    });
  });

  it("overrides narrow tools; a grant beyond the platform list is ignored and reported", () => {
    const frozen = freezeRegistry(doc(), {
      allowed_tools: { reviewer: ["Read", "Write", "Bash(curl:*)"] },
    });
    expect(frozen.roles.reviewer?.allowed_tools).toEqual(["Read"]);
    expect(frozen.notices.map((n) => n.path)).toEqual([
      ["allowed_tools", "reviewer", 1],
      ["allowed_tools", "reviewer", 2],
    ]);
    expect(frozen.notices[0]?.message).toContain('may not be granted "Write"');
  });

  it("a later layer (the run) cannot re-grant what an earlier one (the project) took away", () => {
    const frozen = freezeRegistry(doc(), [
      { allowed_tools: { builder: ["Read", "Edit"] } },
      { allowed_tools: { builder: ["Read", "Edit", "Write"] } },
    ]);
    expect(frozen.roles.builder?.allowed_tools).toEqual(["Read", "Edit"]);
    expect(frozen.notices).toHaveLength(1);
    expect(frozen.notices[0]).toMatchObject({ layer: 1, path: ["allowed_tools", "builder", 2] });
  });

  it("a mandatory role cannot be disabled (reported); an optional one can be enabled and disabled", () => {
    const frozen = freezeRegistry(doc(), { enabled: ["docs"], disabled: ["reviewer", "security"] });
    expect(Object.keys(frozen.roles)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
      "docs",
    ]);
    expect(frozen.notices.map((n) => n.message)).toEqual([
      'override: role "reviewer" is mandatory and cannot be disabled; it stays enabled',
      'override: role "security" is mandatory and cannot be disabled; it stays enabled',
    ]);
    expect(
      freezeRegistry(doc(), [{ enabled: ["docs"] }, { disabled: ["docs"] }]).roles.docs,
    ).toBeUndefined();
  });

  it("the document itself cannot make a chain role optional", () => {
    const d = doc();
    d.roles.reviewer.mandatory = false;
    expect(RoleDocumentSchema.safeParse(d).success).toBe(false);
    expect(() => freezeRegistry(d, { disabled: ["reviewer"] })).toThrow(/reviewer is a chain role/);
  });

  it("skills are replaced per role; a non-slug name is ignored and reported (R2.4)", () => {
    const frozen = freezeRegistry(doc(), { skills: { builder: ["tdd", "../../etc", "tdd"] } });
    expect(frozen.roles.builder?.skills).toEqual(["tdd"]);
    expect(frozen.roles.reviewer?.skills).toBeNull();
    expect(frozen.notices[0]?.message).toContain('"../../etc" is not a slug');
  });

  it("a repository request budget can lower the platform's, never raise it", () => {
    expect(freezeRegistry(doc(), {}, { requestBudget: 1 }).requestBudget).toBe(1);
    const d = { ...doc(), request_budget: 2 };
    const raised = freezeRegistry(d, {}, { requestBudget: 3 });
    expect(raised.requestBudget).toBe(2);
    expect(raised.notices[0]?.message).toContain("above the platform's 2");
  });

  it("tool availability: requested tools the runner lacks are listed, not granted", () => {
    const frozen = freezeRegistry(doc(), {}, { availableTools: ["Read", "Grep"] });
    expect(frozen.roles.reviewer?.allowed_tools).toEqual(["Read", "Grep"]);
    expect(frozen.roles.reviewer?.unavailable_tools).toContain("Glob");
  });

  it("the digest is over content: stable across key order, changed by any edit", () => {
    const a = freezeRegistry(doc(), { skills: { builder: ["tdd"] } });
    const reordered = JSON.parse(JSON.stringify(doc()), (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).reverse())
        : v,
    );
    expect(freezeRegistry(reordered, { skills: { builder: ["tdd"] } }).digest).toBe(a.digest);
    expect(freezeRegistry(doc(), { skills: { builder: ["tdd2"] } }).digest).not.toBe(a.digest);
    expect(
      freezeRegistry({ ...doc(), version: 2 }, { skills: { builder: ["tdd"] } }).digest,
    ).not.toBe(a.digest);
  });

  it("later edits of the document do not change a frozen registry", () => {
    const d = doc();
    const frozen = freezeRegistry(d);
    const before = JSON.stringify(frozen);
    d.roles.builder.allowed_tools.push("Bash(curl:*)");
    d.roles.builder.instructions = "elsewhere.md";
    expect(JSON.stringify(frozen)).toBe(before);
  });
});
