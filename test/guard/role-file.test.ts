// R4.2 rule 4: a role may Read its own `.claude/agents/<role>.md` — only with Read, only its
// own file, only under the project dir, and only if no component of the path is a symlink.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROLES } from "../../src/roles/role-names.js";
import { bash, decide, removeDir, tempDir } from "./guard-kit.js";

let root = "";
let project = "";

function makeProject(dir: string): void {
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  for (const role of ROLES) writeFileSync(join(dir, ".claude", "agents", `${role}.md`), "# role\n");
}

beforeEach(() => {
  root = tempDir();
  project = join(root, "project");
  makeProject(project);
  writeFileSync(join(root, "credentials.json"), "{}");
});
afterEach(() => removeDir(root));

describe("own role definition", () => {
  it.each(ROLES)("%s may Read its own file (relative and absolute)", async (role) => {
    const rel = `.claude/agents/${role}.md`;
    expect(await decide("Read", { file_path: rel }, { cwd: project, role })).toBeNull();
    expect(
      await decide("Read", { file_path: join(project, rel) }, { cwd: project, role }),
    ).toBeNull();
  });

  it("another role's file stays closed", async () => {
    const reason = await decide(
      "Read",
      { file_path: ".claude/agents/reviewer.md" },
      { cwd: project, role: "builder" },
    );
    expect(reason).toMatch("(rule: claude-dir)");
  });

  it.each(["Edit", "Write"])("%s of its own file is refused", async (tool) => {
    const input = { file_path: ".claude/agents/builder.md" };
    expect(await decide(tool, input, { cwd: project, role: "builder" })).toMatch(
      "(rule: claude-dir)",
    );
  });

  it("the rest of .claude/ stays closed", async () => {
    for (const file of [
      ".claude/settings.json",
      ".claude/agents/builder.md.bak",
      ".claude/agents",
    ]) {
      expect(await decide("Read", { file_path: file }, { cwd: project })).toMatch(
        "(rule: claude-dir)",
      );
    }
  });

  it("Bash may not read it either", async () => {
    expect(await bash("cat .claude/agents/builder.md", { cwd: project })).toMatch(
      "(rule: claude-dir)",
    );
  });

  it("only under the project dir (CLAUDE_PROJECT_DIR wins over cwd)", async () => {
    const other = join(root, "other");
    makeProject(other);
    const env = { CLAUDE_PROJECT_DIR: project, HOME: "/home/agent" };
    const inOther = { file_path: join(other, ".claude/agents/builder.md") };
    expect(await decide("Read", inOther, { cwd: other, env })).toMatch("(rule: claude-dir)");
    const inProject = { file_path: join(project, ".claude/agents/builder.md") };
    expect(await decide("Read", inProject, { cwd: other, env })).toBeNull();
  });

  it("a missing file is let through (Read will fail)", async () => {
    const empty = join(root, "empty");
    mkdirSync(empty);
    expect(
      await decide("Read", { file_path: ".claude/agents/builder.md" }, { cwd: empty }),
    ).toBeNull();
  });
});

describe("a symlink anywhere in the path is refused", () => {
  it("the file is a symlink to a credential", async () => {
    const file = join(project, ".claude", "agents", "builder.md");
    removeDir(file);
    symlinkSync(join(root, "credentials.json"), file);
    const reason = await decide("Read", { file_path: file }, { cwd: project });
    expect(reason).toMatch(/agents\/builder\.md is a symlink/);
  });

  it("the agents dir is a symlink", async () => {
    const elsewhere = join(root, "elsewhere");
    makeProject(elsewhere);
    removeDir(join(project, ".claude", "agents"));
    symlinkSync(join(elsewhere, ".claude", "agents"), join(project, ".claude", "agents"));
    const reason = await decide(
      "Read",
      { file_path: ".claude/agents/builder.md" },
      { cwd: project },
    );
    expect(reason).toMatch(/\.claude\/agents is a symlink/);
  });

  it(".claude itself is a symlink", async () => {
    const elsewhere = join(root, "elsewhere");
    makeProject(elsewhere);
    removeDir(join(project, ".claude"));
    symlinkSync(join(elsewhere, ".claude"), join(project, ".claude"));
    const reason = await decide(
      "Read",
      { file_path: ".claude/agents/builder.md" },
      { cwd: project },
    );
    expect(reason).toMatch(/\.claude is a symlink/);
  });
});
