// Process-level: the real `node bin/forge.js config …` on the fixtures and on real git repos.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitAll, makeRepo, tempDir } from "../policy/helpers.js";

const ROOT = join(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "fixtures/config");

function forge(...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, "bin/forge.js"), ...args], {
    encoding: "utf8",
    cwd: ROOT,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const temps: Array<() => void> = [];
beforeAll(() => {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
});
afterAll(() => {
  for (const t of temps) t();
});

describe("forge config check", () => {
  it("prints the resolved config of a valid fixture, exit 0", () => {
    const r = forge("config", "check", "--repo", join(FIXTURES, "valid/node-declared"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/test\s+blocking\s+npm run test:unit\s+\[repo\]/);
    expect(r.stdout).toMatch(/security\s+blocking\s+gitleaks detect --no-banner\s+\[repo\]/);
    expect(r.stdout).toMatch(/lint\s+advisory ⚠\s+npm run lint\s+\[repo\]/);
    expect(r.stdout).toContain("read from the working tree");
  });

  it("--json carries controls with run, advisory and origin, protected paths and roles", () => {
    const r = forge("config", "check", "--json", "--repo", join(FIXTURES, "valid/node-minimal"));
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.controls).toEqual([
      {
        id: "test",
        name: "test",
        run: "npm test",
        advisory: false,
        origin: "preset:node",
        cwd: ".",
      },
      {
        id: "security",
        name: "security",
        run: "forge:secret-scan",
        advisory: true,
        origin: "floor",
        cwd: ".",
      },
    ]);
    expect(json.protected_paths).toContainEqual({
      pattern: ".github/workflows/**",
      origin: "deployment",
    });
    expect(Object.keys(json.roles.roles)).toEqual(["architect", "builder", "reviewer", "security"]);
    expect(json.roles.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(json.setup_validate_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("every valid fixture gives its expected.json, every refused one its expected.txt and exit 1", () => {
    for (const name of ["node-minimal", "go-components", "rust-full", "python-uv", "make-only"]) {
      const dir = join(FIXTURES, "valid", name);
      const r = forge("config", "check", "--json", "--repo", dir);
      expect(r.code, name).toBe(0);
      expect(JSON.parse(r.stdout), name).toMatchObject(
        JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")),
      );
    }
    for (const name of [
      "typo-key",
      "no-test",
      "wrong-types",
      "unprotect-key",
      "malformed-yaml",
      "no-config",
    ]) {
      const dir = join(FIXTURES, "refused", name);
      const r = forge("config", "check", "--repo", dir);
      expect(r.code, name).toBe(1);
      const expected = readFileSync(join(dir, "expected.txt"), "utf8").trimEnd().split("\n");
      const printed = r.stderr.trimEnd().split("\n");
      expect(printed.slice(1, -1), name).toEqual(expected);
      expect(printed.at(-1)).toMatch(/^forge config: \d+ errors?; nothing will run until fixed$/);
    }
  });

  it("a repository without a test control is refused naming test", () => {
    const r = forge("config", "check", "--repo", join(FIXTURES, "refused/no-test"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.github/forge.yml:2:1: no "test" control');
    expect(r.stdout).toBe("");
    const json = forge("config", "check", "--json", "--repo", join(FIXTURES, "refused/no-test"));
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      errors: [{ code: "floor_missing_control", path: "validate.test" }],
    });
  });

  it("reads the default branch of a git repository, not the working tree", () => {
    const t = tempDir("forge-cli-config-");
    temps.push(t.cleanup);
    makeRepo(t.dir, { ".github/forge.yml": "validate:\n  test: { run: make test }\n" });
    writeFileSync(join(t.dir, ".github/forge.yml"), "valdate: {}\n");
    const r = forge("config", "check", "--json", "--repo", t.dir);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.source).toMatchObject({ from: "git", ref: "main" });
    expect(json.controls[0]).toMatchObject({ id: "test", run: "make test", origin: "repo" });
    // Once the broken file is committed on the default branch, it is refused.
    commitAll(t.dir, "break it");
    const broken = forge("config", "check", "--repo", t.dir);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(
      '.github/forge.yml:1:1: unknown key "valdate" — did you mean "validate"?',
    );
  });

  it("bad usage exits 2", () => {
    expect(forge("config", "check", "--repo", join(FIXTURES, "does-not-exist")).code).toBe(2);
    expect(forge("config", "check", "--bogus").code).toBe(2);
    expect(forge("config", "explain").code).toBe(2);
  });
});

describe("forge config explain", () => {
  it("shows the value, the layer it came from and the layers below", () => {
    const r = forge(
      "config",
      "explain",
      "validate.test",
      "--repo",
      join(FIXTURES, "valid/node-declared"),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('validate.test = {"run":"npm run test:unit","advisory":false}');
    expect(r.stdout).toContain("from: repo");
    expect(r.stdout).toMatch(/preset:node\s+\{"run":"npm test"\}/);
  });

  it("explains the floor's control and fields of it", () => {
    const r = forge(
      "config",
      "explain",
      "validate.security.run",
      "--json",
      "--repo",
      join(FIXTURES, "valid/rust-full"),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      key: "validate.security.run",
      value: "forge:secret-scan",
      origin: "floor",
    });
  });

  it("an unknown key is bad usage with a suggestion", () => {
    const r = forge(
      "config",
      "explain",
      "lables.change",
      "--repo",
      join(FIXTURES, "valid/rust-full"),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean "labels.change"?');
  });
});
