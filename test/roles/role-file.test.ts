import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  loadRoleDefinition,
  parseRoleFile,
  type RoleDefinition,
  RoleFileError,
} from "../../src/roles/role-file.js";
import { ROLES } from "../../src/roles/role-names.js";

const SRC = "test.md";

describe("parseRoleFile", () => {
  const good: Array<[string, string, Omit<RoleDefinition, "source">]> = [
    ["no front matter", "You plan.\n", { prompt: "You plan.", skills: [] }],
    [
      "skills as a YAML list, model",
      "---\nskills:\n  - plan-format\n  - verify\nmodel: sonnet\n---\n\nYou plan.\n",
      { prompt: "You plan.", skills: ["plan-format", "verify"], model: "sonnet" },
    ],
    [
      "skills as a flow list",
      "---\nskills: [plan-format, verify]\n---\nBody",
      { prompt: "Body", skills: ["plan-format", "verify"] },
    ],
    [
      "skills as comma/space string, deduplicated",
      "---\nskills: plan-format, verify  review-checklist,verify\n---\nBody",
      { prompt: "Body", skills: ["plan-format", "verify", "review-checklist"] },
    ],
    [
      "single skill string",
      "---\nskills: verify\n---\nBody",
      { prompt: "Body", skills: ["verify"] },
    ],
    ["empty skills", "---\nskills:\n---\nBody", { prompt: "Body", skills: [] }],
    ["empty front matter", "---\n---\nBody", { prompt: "Body", skills: [] }],
    [
      "CRLF and BOM",
      "\uFEFF---\r\nskills: [verify]\r\nmodel: opus\r\n---\r\nBody\r\n",
      { prompt: "Body", skills: ["verify"], model: "opus" },
    ],
    [
      "other keys are ignored (tools never come from a role file)",
      "---\nname: builder\ndescription: builds\ntools: Bash, Write\n---\nBody",
      { prompt: "Body", skills: [] },
    ],
    [
      "model inherit means default",
      "---\nmodel: inherit\n---\nBody",
      { prompt: "Body", skills: [] },
    ],
    [
      "model id with version and suffix",
      "---\nmodel: claude-opus-4-1-20250805[1m]\n---\nBody",
      { prompt: "Body", skills: [], model: "claude-opus-4-1-20250805[1m]" },
    ],
    [
      "--- later in the body is body",
      "Intro\n---\nskills: [x]\n---\n",
      { prompt: "Intro\n---\nskills: [x]\n---", skills: [] },
    ],
    [
      "skill names are kept as written (materialiseSkills refuses bad ones)",
      "---\nskills: [../../etc, Verify]\n---\nBody",
      { prompt: "Body", skills: ["../../etc", "Verify"] },
    ],
  ];
  it.each(good)("parses: %s", (_name, text, expected) => {
    expect(parseRoleFile(text, SRC)).toEqual({ ...expected, source: SRC });
  });

  const bad: Array<[string, string, string]> = [
    ["unclosed front matter", "---\nskills: [a]\nBody", "never closed"],
    ["invalid YAML", "---\nskills: [a, b\n---\nBody", "not valid YAML"],
    ["duplicate keys", "---\nmodel: a\nmodel: b\n---\nBody", "not valid YAML"],
    ["front matter is a list", "---\n- a\n- b\n---\nBody", "must be a mapping"],
    ["front matter is a scalar", "---\njust text\n---\nBody", "must be a mapping"],
    ["skills is a number", "---\nskills: 3\n---\nBody", "skills must be a list"],
    ["skills is a mapping", "---\nskills: {a: 1}\n---\nBody", "skills must be a list"],
    ["skills holds a number", "---\nskills: [verify, 7]\n---\nBody", "skills[1] must be a string"],
    ["model is a number", "---\nmodel: 4.5\n---\nBody", "model must be a string"],
    ["model is a list", "---\nmodel: [a]\n---\nBody", "model must be a string"],
    [
      "model looks like a flag",
      "---\nmodel: --dangerously-skip-permissions\n---\nBody",
      "not a model name",
    ],
    ["model has a space", "---\nmodel: opus --verbose\n---\nBody", "not a model name"],
    ["empty prompt", "---\nskills: [verify]\n---\n\n  \n", "prompt"],
    ["too large", `Body${"x".repeat(300 * 1024)}`, "larger than"],
  ];
  it.each(bad)("refuses: %s", (_name, text, message) => {
    let caught: unknown;
    try {
      parseRoleFile(text, "roles/x.md");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RoleFileError);
    expect((caught as RoleFileError).message).toContain("roles/x.md");
    expect((caught as RoleFileError).message).toContain(message);
    expect((caught as RoleFileError).source).toBe("roles/x.md");
  });
});

describe("loadRoleDefinition", () => {
  const temps: string[] = [];
  afterEach(() => {
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function layout(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), "forge-role-test-"));
    temps.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    for (const dir of ["handbook", "repo", "defaults"])
      mkdirSync(join(root, dir), { recursive: true });
    return root;
  }

  const role = (origin: string, skill: string) =>
    `---\nskills: [${skill}]\nmodel: ${origin}-model\n---\n${origin} prompt\n`;
  const all = {
    "handbook/docs/agents/seeds/builder.md": role("handbook", "verify"),
    "repo/.claude/agents/builder.md": role("repo", "repo-skill"),
    "defaults/builder.md": role("default", "verify"),
  };

  const cases: Array<[string, Record<string, string>, boolean, string]> = [
    ["handbook wins when a handbook is given", all, true, "handbook"],
    ["repo fallback when no handbook", all, false, "repo"],
    [
      "default when neither",
      { "defaults/builder.md": all["defaults/builder.md"] },
      false,
      "default",
    ],
    [
      "default when the repo has .claude but no agents file",
      { "defaults/builder.md": all["defaults/builder.md"], "repo/.claude/settings.json": "{}" },
      false,
      "default",
    ],
  ];
  it.each(cases)("%s", async (_name, files, withHandbook, origin) => {
    const root = layout(files);
    const loaded = await loadRoleDefinition({
      role: "builder",
      repoDir: join(root, "repo"),
      defaultsDir: join(root, "defaults"),
      handbookDir: withHandbook ? join(root, "handbook") : undefined,
    });
    expect(loaded.origin).toBe(origin);
    expect(loaded.prompt).toBe(`${origin} prompt`);
    expect(loaded.model).toBe(`${origin}-model`);
    expect(loaded.source).toContain(join(root, origin === "default" ? "defaults" : origin));
  });

  it("a handbook without the role is an error, not a fall back to the repo", async () => {
    const root = layout({
      "repo/.claude/agents/builder.md": all["repo/.claude/agents/builder.md"],
    });
    await expect(
      loadRoleDefinition({
        role: "builder",
        repoDir: join(root, "repo"),
        defaultsDir: join(root, "defaults"),
        handbookDir: join(root, "handbook"),
      }),
    ).rejects.toThrow(/handbook has no role definition for builder/);
  });

  it("no built-in default is an error naming the path", async () => {
    const root = layout({});
    await expect(
      loadRoleDefinition({
        role: "builder",
        repoDir: join(root, "repo"),
        defaultsDir: join(root, "defaults"),
      }),
    ).rejects.toThrow(RoleFileError);
  });

  it("refuses an unknown role name (it becomes a path component)", async () => {
    const root = layout({});
    await expect(
      loadRoleDefinition({
        role: "../../etc/passwd" as never,
        repoDir: join(root, "repo"),
        defaultsDir: join(root, "defaults"),
      }),
    ).rejects.toThrow(/unknown role/);
  });

  const symlinkCases: Array<[string, (root: string) => void]> = [
    [
      "the role file is a symlink to a credential",
      (root) => {
        mkdirSync(join(root, "repo/.claude/agents"), { recursive: true });
        symlinkSync(
          join(root, "secret/credentials.json"),
          join(root, "repo/.claude/agents/builder.md"),
        );
      },
    ],
    [
      ".claude/agents is a symlink",
      (root) => {
        mkdirSync(join(root, "repo/.claude"), { recursive: true });
        symlinkSync(join(root, "secret"), join(root, "repo/.claude/agents"));
      },
    ],
    [
      ".claude is a symlink",
      (root) => symlinkSync(join(root, "secret"), join(root, "repo/.claude")),
    ],
  ];
  it.each(symlinkCases)("refuses a repo role file when %s", async (_name, plant) => {
    const root = layout({
      "secret/credentials.json": '{"token":"not-a-real-token"}\n',
      "secret/builder.md": "---\nskills: []\n---\nplanted prompt\n",
      "secret/agents/builder.md": "---\nskills: []\n---\nplanted prompt\n",
      "defaults/builder.md": all["defaults/builder.md"],
    });
    plant(root);
    const load = loadRoleDefinition({
      role: "builder",
      repoDir: join(root, "repo"),
      defaultsDir: join(root, "defaults"),
    });
    await expect(load).rejects.toThrow(RoleFileError);
    await expect(load).rejects.toThrow(/symlink/);
  });

  it("refuses a symlinked handbook seed", async () => {
    const root = layout({ "elsewhere/builder.md": all["defaults/builder.md"] });
    mkdirSync(join(root, "handbook/docs/agents/seeds"), { recursive: true });
    symlinkSync(
      join(root, "elsewhere/builder.md"),
      join(root, "handbook/docs/agents/seeds/builder.md"),
    );
    await expect(
      loadRoleDefinition({
        role: "builder",
        repoDir: join(root, "repo"),
        defaultsDir: join(root, "defaults"),
        handbookDir: join(root, "handbook"),
      }),
    ).rejects.toThrow(/symlink/);
  });

  it("refuses a repo role file that is a directory", async () => {
    const root = layout({ "defaults/builder.md": all["defaults/builder.md"] });
    mkdirSync(join(root, "repo/.claude/agents/builder.md"), { recursive: true });
    await expect(
      loadRoleDefinition({
        role: "builder",
        repoDir: join(root, "repo"),
        defaultsDir: join(root, "defaults"),
      }),
    ).rejects.toThrow(/not a regular file/);
  });

  it.each(ROLES)("the shipped default for %s parses and names its skill", async (name) => {
    const defaultsDir = join(import.meta.dirname, "..", "..", "roles");
    const root = layout({});
    const loaded = await loadRoleDefinition({
      role: name,
      repoDir: join(root, "repo"),
      defaultsDir,
    });
    expect(loaded.origin).toBe("default");
    expect(loaded.skills.length).toBeGreaterThan(0);
    expect(loaded.prompt.length).toBeGreaterThan(500);
  });
});
