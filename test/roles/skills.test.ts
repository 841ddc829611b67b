import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { materialiseSkills, SkillsError, skillNameProblem } from "../../src/roles/skills.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "skills");
const SHIPPED = join(import.meta.dirname, "..", "..", "skills");

let root: string;
let catalogA: string;
let catalogB: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "forge-skills-test-"));
  catalogA = join(root, "catalog-a");
  catalogB = join(root, "catalog-b");
  cpSync(join(FIXTURES, "catalog-a"), catalogA, { recursive: true });
  cpSync(join(FIXTURES, "catalog-b"), catalogB, { recursive: true });
  home = join(root, "home");
  mkdirSync(home);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const skillsDir = () => join(home, ".claude", "skills");
const installedNames = () => (existsSync(skillsDir()) ? readdirSync(skillsDir()).sort() : []);

describe("skillNameProblem", () => {
  it.each([
    ["verify", null],
    ["plan-format", null],
    ["a1-b2-c3", null],
    ["", "empty"],
    ["A", "not a slug"],
    ["Verify", "not a slug"],
    ["../../etc", "not a slug"],
    ["x/y", "not a slug"],
    ["-x", "not a slug"],
    ["x-", "not a slug"],
    ["a--b", "not a slug"],
    ["a_b", "not a slug"],
    ["a b", "not a slug"],
    [".", "not a slug"],
    ["x".repeat(65), "longer than"],
  ])("%j → %j", (name, expected) => {
    const problem = skillNameProblem(name);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("materialiseSkills", () => {
  it("installs only the named skills; unnamed ones never reach the HOME", async () => {
    const result = await materialiseSkills({
      names: ["alpha"],
      catalogDirs: [catalogA, catalogB],
      home,
    });
    expect(result).toEqual({ installed: ["alpha"], missing: [], refused: [], warnings: [] });
    expect(installedNames()).toEqual(["alpha"]);
    // Sub-files come along, with the execute bit of helper scripts.
    expect(readFileSync(join(skillsDir(), "alpha/reference/notes.md"), "utf8")).toContain("notes");
    expect(statSync(join(skillsDir(), "alpha/scripts/helper.sh")).mode & 0o111).not.toBe(0);
  });

  it("takes a skill from the first catalog that has it", async () => {
    const result = await materialiseSkills({
      names: ["beta", "gamma"],
      catalogDirs: [catalogA, catalogB],
      home,
    });
    expect(result.installed).toEqual(["beta", "gamma"]);
    expect(readFileSync(join(skillsDir(), "beta/SKILL.md"), "utf8")).toContain(
      "beta from catalog A",
    );
    expect(readFileSync(join(skillsDir(), "gamma/SKILL.md"), "utf8")).toContain(
      "gamma from catalog B",
    );
    expect(installedNames()).toEqual(["beta", "gamma"]);
  });

  const refusedCases: Array<[string]> = [["../../etc"], ["A"], ["x/y"], [""], ["..%2F"], ["/abs"]];
  it.each(refusedCases)("refuses %j with a message and carries on", async (bad) => {
    const result = await materialiseSkills({
      names: [bad, "alpha"],
      catalogDirs: [catalogA],
      home,
    });
    expect(result.refused).toEqual([{ name: bad, reason: expect.stringContaining("refused") }]);
    expect(result.installed).toEqual(["alpha"]);
    expect(installedNames()).toEqual(["alpha"]);
  });

  it("refuses a traversal name even when the path it names exists", async () => {
    // `catalog-a/../catalog-b/gamma` exists; a non-slug must never be resolved as a path.
    const name = "../catalog-b/gamma";
    const result = await materialiseSkills({ names: [name], catalogDirs: [catalogA], home });
    expect(result.refused.map((r) => r.name)).toEqual([name]);
    expect(existsSync(join(home, ".claude"))).toBe(false);
  });

  it("reports a missing skill and skips it, never fatal", async () => {
    const result = await materialiseSkills({
      names: ["nope", "no-skill-md", "alpha"],
      catalogDirs: [catalogA, catalogB],
      home,
    });
    expect(result.missing).toEqual(["nope", "no-skill-md"]);
    expect(result.installed).toEqual(["alpha"]);
    expect(installedNames()).toEqual(["alpha"]);
  });

  it("creates nothing in the HOME when no skill is named", async () => {
    const result = await materialiseSkills({ names: [], catalogDirs: [catalogA], home });
    expect(result).toEqual({ installed: [], missing: [], refused: [], warnings: [] });
    expect(existsSync(join(home, ".claude"))).toBe(false);
  });

  it("never follows a symlink inside a skill dir", async () => {
    writeFileSync(join(root, "credential.json"), '{"token":"fake"}\n');
    symlinkSync(join(root, "credential.json"), join(catalogA, "alpha", "creds.json"));
    symlinkSync(join(root), join(catalogA, "alpha", "whole-root"));
    const result = await materialiseSkills({ names: ["alpha"], catalogDirs: [catalogA], home });
    expect(result.installed).toEqual(["alpha"]);
    expect(result.warnings).toEqual([
      "skill alpha: skipped symlink creds.json",
      "skill alpha: skipped symlink whole-root",
    ]);
    expect(existsSync(join(skillsDir(), "alpha", "creds.json"))).toBe(false);
    expect(existsSync(join(skillsDir(), "alpha", "whole-root"))).toBe(false);
  });

  it("does not use a skill dir or SKILL.md that is a symlink; falls through to the next catalog", async () => {
    rmSync(join(catalogA, "beta"), { recursive: true });
    symlinkSync(join(catalogB, "gamma"), join(catalogA, "beta"));
    rmSync(join(catalogB, "beta/SKILL.md"));
    symlinkSync(join(catalogB, "gamma/SKILL.md"), join(catalogB, "beta/SKILL.md"));
    const result = await materialiseSkills({
      names: ["beta"],
      catalogDirs: [catalogA, catalogB],
      home,
    });
    expect(result.installed).toEqual([]);
    expect(result.missing).toEqual(["beta"]);
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings.join("\n")).toContain("symlink");
  });

  it("refuses to write through a symlinked ~/.claude", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(home, ".claude"));
    await expect(
      materialiseSkills({ names: ["alpha"], catalogDirs: [catalogA], home }),
    ).rejects.toThrow(SkillsError);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("replaces a planted symlink at the skill's target instead of writing through it", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(skillsDir(), { recursive: true });
    symlinkSync(elsewhere, join(skillsDir(), "alpha"));
    const result = await materialiseSkills({ names: ["alpha"], catalogDirs: [catalogA], home });
    expect(result.installed).toEqual(["alpha"]);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(statSync(join(skillsDir(), "alpha/SKILL.md")).isFile()).toBe(true);
  });

  it("refuses a skill over the file limit and leaves nothing half-copied", async () => {
    const big = join(catalogA, "alpha", "many");
    mkdirSync(big);
    for (let i = 0; i < 210; i++) writeFileSync(join(big, `f${i}.md`), "x");
    const result = await materialiseSkills({
      names: ["alpha", "beta"],
      catalogDirs: [catalogA],
      home,
    });
    expect(result.refused).toEqual([
      { name: "alpha", reason: expect.stringContaining("more than 200 files") },
    ]);
    expect(installedNames()).toEqual(["beta"]);
  });

  it("installs each name once when repeated", async () => {
    const result = await materialiseSkills({
      names: ["alpha", "alpha"],
      catalogDirs: [catalogA],
      home,
    });
    expect(result.installed).toEqual(["alpha"]);
  });

  it.each(["plan-format", "verify", "review-checklist", "security-review"])(
    "the shipped skill %s installs from skills/ and has name + description front matter",
    async (name) => {
      const result = await materialiseSkills({ names: [name], catalogDirs: [SHIPPED], home });
      expect(result.installed).toEqual([name]);
      const text = readFileSync(join(skillsDir(), name, "SKILL.md"), "utf8");
      expect(text).toMatch(new RegExp(`^---\\nname: ${name}\\ndescription: .{40,}\\n`));
    },
  );
});
