import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/cascade.js";
import { DEFAULT_DEPLOYMENT, type DeploymentConfig } from "../../src/policy/deployment.js";
import { explain } from "../../src/policy/explain.js";
import { FLOOR_SECURITY_CONTROL } from "../../src/policy/floor.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";
import { ConfigError } from "../../src/policy/issues.js";
import { touchesProtected } from "../../src/policy/protected-paths.js";

const repo = (text: string) => parseForgeConfig(text);

describe("resolveConfig: the cascade", () => {
  it("takes the preset's setup and test, and the floor's security, with origins", () => {
    const config = resolveConfig({ rootFiles: ["package.json", "package-lock.json"] });
    expect(config.setup).toEqual({ value: ["npm ci"], origin: "preset:node" });
    expect(config.controls.test).toEqual({
      name: "test",
      run: "npm test",
      advisory: false,
      origin: "preset:node",
      cwd: ".",
    });
    expect(config.controls.security).toMatchObject({ ...FLOOR_SECURITY_CONTROL, origin: "floor" });
  });

  it("detects each stack and its usual commands", () => {
    const cases: Array<[string[], string, string]> = [
      [["pyproject.toml", "uv.lock"], "preset:python", "uv run pytest"],
      [["requirements.txt"], "preset:python", ".venv/bin/python -m unittest"],
      [
        ["requirements.txt", "tests"],
        "preset:python",
        ".venv/bin/python -m unittest discover -s tests",
      ],
      [["pyproject.toml", "conftest.py"], "preset:python", ".venv/bin/python -m pytest"],
      [["go.mod"], "preset:go", "go test ./..."],
      [["Cargo.toml"], "preset:rust", "cargo test"],
      [["package.json", "pnpm-lock.yaml"], "preset:node", "pnpm test"],
    ];
    for (const [files, origin, run] of cases) {
      const config = resolveConfig({ rootFiles: files });
      expect(config.controls.test, files.join(",")).toMatchObject({ run, origin });
    }
  });

  it("the repository block overrides the preset, component blocks add per-folder controls", () => {
    const config = resolveConfig({
      rootFiles: ["go.mod"],
      repo: repo(
        "setup: [make deps]\nvalidate:\n  test: { run: make test }\ncomponents:\n  web:\n    validate:\n      test: { run: npm test }\n",
      ),
    });
    expect(config.setup).toEqual({ value: ["make deps"], origin: "repo" });
    expect(config.controls.test).toMatchObject({ run: "make test", origin: "repo" });
    expect(config.components.web?.controls.test).toEqual({
      name: "test",
      run: "npm test",
      advisory: false,
      origin: "component:web",
      cwd: "web",
    });
    expect(explain(config, "validate.test").layers.map((l) => l.origin)).toEqual([
      "preset:go",
      "repo",
    ]);
    expect(explain(config, "components.web.validate.test").origin).toBe("component:web");
    expect(explain(config, "components.web.validate.security").note).toContain(
      "repository's control applies",
    );
  });

  it("a deployment default is overridden by the repository, field by field for scalars", () => {
    const config = resolveConfig({
      rootFiles: ["Cargo.toml"],
      repo: repo("labels: { change: bot }\nprovider: { models: { deep: claude-opus-4-1 } }\n"),
    });
    expect(config.labels.change).toEqual({ value: "bot", origin: "repo" });
    expect(config.labels.review).toEqual({ value: "forge:review", origin: "deployment" });
    expect(config.provider.models.deep).toEqual({ value: "claude-opus-4-1", origin: "repo" });
    expect(config.provider.models.fast).toEqual({ value: "haiku", origin: "deployment" });
  });

  it("switching provider drops the other provider's tier models", () => {
    const config = resolveConfig({
      rootFiles: ["Cargo.toml"],
      repo: repo("provider: { name: codex }\n"),
    });
    expect(config.provider.name).toEqual({ value: "codex", origin: "repo" });
    expect(config.provider.models).toEqual({ fast: null, balanced: null, deep: null });
  });

  it("names the other stacks when several are found", () => {
    const config = resolveConfig({ rootFiles: ["package.json", "go.mod"] });
    expect(config.preset).toBe("node");
    expect(config.notices.map((n) => n.code)).toEqual(["several_stacks"]);
  });

  it("is pure: same input, same output, input untouched", () => {
    const deployment: DeploymentConfig = structuredClone(DEFAULT_DEPLOYMENT);
    const input = { deployment, rootFiles: ["go.mod"], repo: repo("protected_paths: [x/**]\n") };
    const before = JSON.stringify(input.deployment) + JSON.stringify(input.repo.config);
    expect(JSON.stringify(resolveConfig(input))).toBe(JSON.stringify(resolveConfig(input)));
    expect(JSON.stringify(input.deployment) + JSON.stringify(input.repo.config)).toBe(before);
  });
});

describe("the quality floor", () => {
  it("refuses a repository without a test control, naming test and a fix", () => {
    const run = () =>
      resolveConfig({
        rootFiles: ["README.md"],
        repo: repo("validate:\n  lint: { run: make lint }\n"),
      });
    expect(run).toThrow(ConfigError);
    try {
      run();
    } catch (error) {
      const [issue] = (error as ConfigError).issues;
      expect(issue?.code).toBe("floor_missing_control");
      expect(issue?.message).toContain('"test"');
      expect(issue?.fix).toContain("validate: { test:");
      expect([issue?.line, issue?.column]).toEqual([1, 1]);
    }
  });

  it("refuses a repository with no stack and no config at all", () => {
    expect(() => resolveConfig({ rootFiles: [] })).toThrow(/no "test" control/);
  });

  it("a component's test does not satisfy the floor for the repository root", () => {
    const text = "components:\n  web:\n    validate:\n      test: { run: npm test }\n";
    expect(() => resolveConfig({ rootFiles: [], repo: repo(text) })).toThrow(/no "test" control/);
  });

  it("a test from the deployment layer satisfies it", () => {
    const deployment = { ...DEFAULT_DEPLOYMENT, validate: { test: { run: "make ci" } } };
    expect(resolveConfig({ deployment, rootFiles: [] }).controls.test?.origin).toBe("deployment");
  });

  it("keeps a declared control exactly as written — even a security control made blocking or a test made advisory", () => {
    const config = resolveConfig({
      rootFiles: ["package.json"],
      repo: repo(
        "validate:\n  test: { run: npm run t, advisory: true }\n  security: { run: gitleaks detect }\n",
      ),
    });
    expect(config.controls.security).toMatchObject({
      run: "gitleaks detect",
      advisory: false,
      origin: "repo",
    });
    expect(config.controls.test).toMatchObject({
      run: "npm run t",
      advisory: true,
      origin: "repo",
    });
    // A control is taken whole: the preset's `npm test` left nothing behind.
    expect(Object.keys(config.controls).sort()).toEqual(["security", "test"]);
  });

  it("adds only what is missing", () => {
    const config = resolveConfig({
      rootFiles: ["go.mod"],
      repo: repo("validate:\n  vet: { run: go vet ./... }\n"),
    });
    expect(Object.keys(config.controls).sort()).toEqual(["security", "test", "vet"]);
    expect(config.trace["validate.security"]).toEqual([
      { origin: "floor", value: FLOOR_SECURITY_CONTROL },
    ]);
  });
});

describe("protected paths and trusted logins are additive", () => {
  it("a repository adds patterns; a negation has no effect and is reported", () => {
    const parsed = repo(
      "validate: { test: { run: t } }\nprotected_paths:\n  - db/**\n  - '!CODEOWNERS'\n  - '!.github/workflows/**'\n",
    );
    const config = resolveConfig({ rootFiles: [], repo: parsed });
    const patterns = config.protectedPaths.map((p) => p.pattern);
    expect(patterns).toContain("db/**");
    expect(patterns.filter((p) => p.startsWith("!"))).toEqual([]);
    const notices = config.notices.filter((n) => n.code === "unprotect_ignored");
    expect(notices.map((n) => [n.path, n.line, n.column])).toEqual([
      ["protected_paths[1]", 4, 5],
      ["protected_paths[2]", 5, 5],
    ]);
    // No effect: the gate still sees both files as protected.
    const touch = touchesProtected(
      ["CODEOWNERS", ".github/workflows/ci.yml", "db/1.sql", "src/a.ts"],
      patterns,
    );
    expect(touch.files).toEqual(["CODEOWNERS", ".github/workflows/ci.yml", "db/1.sql"]);
  });

  it("every deployment pattern survives any repository config", () => {
    const config = resolveConfig({ rootFiles: ["go.mod"], repo: repo("protected_paths: []\n") });
    expect(config.protectedPaths.map((p) => p.pattern)).toEqual(DEFAULT_DEPLOYMENT.protected_paths);
  });

  it("trusted logins are a case-insensitive union", () => {
    const deployment = { ...DEFAULT_DEPLOYMENT, trusted: ["Alice"] };
    const config = resolveConfig({
      deployment,
      rootFiles: ["go.mod"],
      repo: repo("trusted: [alice, bob]\n"),
    });
    expect(config.trusted).toEqual([
      { login: "Alice", origin: "deployment" },
      { login: "bob", origin: "repo" },
    ]);
  });
});
