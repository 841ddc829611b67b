import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfigSource, resolveFromSource } from "../../src/policy/config-source.js";
import { ConfigError } from "../../src/policy/issues.js";
import { commitAll, git, gitRunner, makeRepo, tempDir, writeFiles } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function temp() {
  const t = tempDir("forge-source-");
  cleanups.push(t.cleanup);
  return t.dir;
}

const MAIN_CONFIG = "validate:\n  test: { run: make test }\n";

describe("readConfigSource: the default branch only (R8.1)", () => {
  it("reads the checked-out branch's commit, not the working tree", async () => {
    const dir = join(temp(), "repo");
    makeRepo(dir, { ".github/forge.yml": MAIN_CONFIG, "go.mod": "module x\n" });
    // Uncommitted edits must not count: they could switch the floor's test off.
    writeFileSync(join(dir, ".github/forge.yml"), "validate:\n  test: { run: 'true' }\n");
    const source = await readConfigSource(dir, gitRunner(dir));
    expect(source).toMatchObject({ from: "git", ref: "main", text: MAIN_CONFIG });
    expect(source.rootFiles.sort()).toEqual([".github", "go.mod"]);
    expect(resolveFromSource(source).config.controls.test?.run).toBe("make test");
  });

  it("with a remote, reads origin/HEAD even while a feature branch is checked out", async () => {
    const base = temp();
    const upstream = join(base, "upstream");
    makeRepo(upstream, { ".github/forge.yml": MAIN_CONFIG });
    const clone = join(base, "clone");
    git(base, "clone", "-q", upstream, clone);
    git(clone, "checkout", "-q", "-b", "forge/1-change");
    writeFiles(clone, { ".github/forge.yml": "validate:\n  test: { run: 'exit 0' }\n" });
    commitAll(clone, "a pull request edits the config");
    const source = await readConfigSource(clone, gitRunner(clone));
    expect(source.ref).toBe("origin/main");
    expect(source.text).toBe(MAIN_CONFIG);
    expect(source.note).toContain("default branch");
  });

  it("a repository without .github/forge.yml has no text, but its root files still count", async () => {
    const dir = join(temp(), "repo");
    makeRepo(dir, { "Cargo.toml": "[package]\n" });
    const source = await readConfigSource(dir, gitRunner(dir));
    expect(source.text).toBeNull();
    expect(resolveFromSource(source).config.controls.test?.origin).toBe("preset:rust");
  });

  it("an empty repository has no commits to read", async () => {
    const dir = join(temp(), "repo");
    mkdirSync(dir);
    git(dir, "init", "-q", "-b", "main");
    expect(await readConfigSource(dir, gitRunner(dir))).toMatchObject({
      from: "git",
      text: null,
      rootFiles: [],
    });
  });

  it("refuses a committed symlink in place of the config", async () => {
    const dir = join(temp(), "repo");
    makeRepo(dir, { "elsewhere.yml": MAIN_CONFIG });
    mkdirSync(join(dir, ".github"));
    symlinkSync("../elsewhere.yml", join(dir, ".github/forge.yml"));
    commitAll(dir, "link");
    await expect(readConfigSource(dir, gitRunner(dir))).rejects.toThrow(ConfigError);
  });

  it("falls back to the working tree only outside a git repository, and says so", async () => {
    const dir = temp();
    writeFiles(dir, { ".github/forge.yml": MAIN_CONFIG });
    const source = await readConfigSource(dir, gitRunner(dir));
    expect(source).toMatchObject({ from: "worktree", ref: null, text: MAIN_CONFIG });
    expect(source.note).toContain("not a git repository: read from the working tree");
  });

  it("a folder inside a repository is read from the working tree, not the enclosing repo", async () => {
    const dir = join(temp(), "repo");
    makeRepo(dir, { ".github/forge.yml": "validate:\n  test: { run: outer }\n" });
    writeFiles(dir, { "sub/.github/forge.yml": MAIN_CONFIG });
    const source = await readConfigSource(join(dir, "sub"), gitRunner(join(dir, "sub")));
    expect(source).toMatchObject({ from: "worktree", text: MAIN_CONFIG });
    expect(source.note).toContain("not its root");
  });
});
