/**
 * The builder runs the project's own commands (issue #13) — through the REAL Claude Code CLI
 * with the real settings and guard: the usual runners of every preset's stack are allowed to
 * the builder and refused to the reviewer; what a repository adds under `builder.allow` is
 * frozen into the run's snapshot for the builder only.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installRoot } from "../../src/install-root.js";
import { loadProfiles } from "../../src/policy/profiles.js";
import { loadRepoPolicy } from "../../src/policy/repo-policy.js";
import type { Role } from "../../src/roles/role-names.js";
import {
  effectiveSettings,
  type RoleSettings,
  SEARCH_TOOLS_ARGS,
} from "../../src/roles/settings.js";
import { buildSnapshotContent, frozenRole } from "../../src/runner/snapshot-content.js";
import { ensureBuilt } from "../harness/build.js";
import { bash, type Case, runCases } from "../harness/cases.js";
import { createRoleRepo, type RoleRepo } from "../harness/role-fixture.js";
import { gitRunner } from "../policy/helpers.js";

const ROOT = installRoot();
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Toolchains this machine may lack: stand-ins that print their argv (the rules only read text). */
let stubs = "";
beforeAll(() => {
  ensureBuilt();
  stubs = mkdtempSync(join(tmpdir(), "forge-stub-bin-"));
  for (const tool of ["yarn", "pnpm", "cargo", "go"]) {
    writeFileSync(join(stubs, tool), `#!/bin/sh\necho "stub ${tool} $*"\n`);
    chmodSync(join(stubs, tool), 0o755);
  }
});
afterAll(() => rmSync(stubs, { recursive: true, force: true }));

const PROJECT = {
  "package.json": `${JSON.stringify({ name: "sample", private: true, scripts: { test: "node --test" } })}\n`,
  "test/greet.test.js": 'const test = require("node:test");\ntest("greets", () => {});\n',
  "test_greet.py":
    "import unittest\n\n\nclass GreetTest(unittest.TestCase):\n    def test_greet(self):\n        self.assertTrue(True)\n",
  Makefile: ".PHONY: test\ntest:\n\t@echo make-tests-ok\n",
  // The run's virtual environment (the Python preset's .venv), reduced to its interpreter.
  ".venv/bin/python": '#!/bin/sh\nexec python3 "$@"\n',
  "tools/check.sh": "echo check-ok\n",
  "tools/lint.sh": "echo lint-ok\n",
};

function projectRepo(role: Role, files: Record<string, string> = {}): RoleRepo {
  const repo = createRoleRepo(role, {
    files: { ...PROJECT, ...files },
    modes: { ".venv/bin/python": 0o755 },
  });
  cleanups.push(() => repo.cleanupAll());
  return repo;
}

/** The usual runners of each preset's stack (the builder's shipped list). */
const RUNNERS = [
  "node --test",
  "npm test",
  "npm run test",
  "npm install --offline --no-audit --no-fund",
  "yarn test",
  "yarn run test",
  "yarn install",
  "pnpm test",
  "pnpm run test",
  "pnpm install",
  "python3 -m pytest -q",
  "python3 -m unittest",
  "pytest -q",
  ".venv/bin/python -m pytest -q",
  ".venv/bin/python -m unittest",
  "cargo test",
  "cargo build --release",
  "cargo check",
  "go test ./...",
  "go build ./...",
  "go vet ./...",
  "make test",
];

const env = () => ({ PATH: `${stubs}:/usr/local/bin:/usr/bin:/bin` });

async function run(repo: RoleRepo, settings: RoleSettings, cases: Case[]) {
  const { run, mismatches } = await runCases([cases], {
    cwd: repo.dir,
    env: { ...env(), FORGE_BASE_REF: repo.base },
    settings,
    extraArgs: SEARCH_TOOLS_ARGS,
  });
  expect(run.exitCode, run.stderr).toBe(0);
  return mismatches();
}

describe("the project's commands through the real CLI", () => {
  it("the builder may run the usual runners of every stack; the reviewer may not", async () => {
    const builder = projectRepo("builder");
    expect(
      await run(
        builder,
        effectiveSettings("builder"),
        RUNNERS.map((c) => ({ label: c, call: bash(c), expect: "allowed" as const })),
      ),
    ).toEqual([]);
    const reviewer = projectRepo("reviewer");
    expect(
      await run(
        reviewer,
        effectiveSettings("reviewer"),
        RUNNERS.map((c) => ({ label: c, call: bash(c), expect: "refused" as const })),
      ),
    ).toEqual([]);
  }, 120_000);

  it("npx, uvx and their twins stay refused to the builder", async () => {
    const repo = projectRepo("builder");
    const cases = [
      "npx --yes cowsay hi",
      "npm exec --yes cowsay hi",
      "npm x cowsay",
      "yarn dlx cowsay",
      "pnpm dlx cowsay",
      "uvx ruff",
      "uv tool run ruff",
      "go run example.com/tool@latest",
    ].map((c) => ({ label: c, call: bash(c), expect: "refused" as const }));
    expect(await run(repo, effectiveSettings("builder"), cases)).toEqual([]);
  }, 60_000);

  it("builder.allow reaches the builder's frozen settings, never a read-only role's", async () => {
    const forgeYml =
      'validate:\n  lint: { run: "sh tools/lint.sh --quick && make test" }\nbuilder:\n  allow: ["sh tools/check.sh *"]\n';
    const builder = projectRepo("builder", { ".github/forge.yml": forgeYml });
    const policy = await loadRepoPolicy(builder.dir, {
      git: gitRunner(builder.dir),
      profiles: loadProfiles(join(ROOT, "profiles")),
    });
    const snapshot = {
      content: await buildSnapshotContent({
        installRoot: ROOT,
        remote: builder.dir,
        ref: builder.base,
        provider: { name: "claude", version: "test" },
        config: policy.config,
      }),
    };
    const frozen = (role: Role) => frozenRole(snapshot, role)?.settings as RoleSettings;
    expect(frozen("builder").permissions.allow).toContain("Bash(sh tools/check.sh *)");
    for (const role of ["architect", "reviewer", "security"] as const) {
      expect(frozen(role).permissions.allow.filter((r) => r.includes("tools/check.sh"))).toEqual(
        [],
      );
    }
    const check = (expectation: "allowed" | "refused"): Case[] => [
      { label: "sh tools/check.sh", call: bash("sh tools/check.sh --all"), expect: expectation },
    ];
    // The frozen builder settings run it, and the control's command exactly (each part of a
    // compound line is judged on its own); the shipped ones (no repository config) do not.
    const control: Case[] = [
      {
        label: "lint control",
        call: bash("sh tools/lint.sh --quick && make test"),
        expect: "allowed",
      },
      { label: "lint part", call: bash("sh tools/lint.sh --quick"), expect: "allowed" },
      { label: "lint, other args", call: bash("sh tools/lint.sh --fix"), expect: "refused" },
    ];
    expect(await run(builder, frozen("builder"), [...check("allowed"), ...control])).toEqual([]);
    expect(await run(builder, effectiveSettings("builder"), check("refused"))).toEqual([]);
    const reviewer = projectRepo("reviewer", { ".github/forge.yml": forgeYml });
    expect(await run(reviewer, frozen("reviewer"), check("refused"))).toEqual([]);
    // A later edit of the repository's config does not reach a snapshot already frozen.
    writeFileSync(join(builder.dir, ".github/forge.yml"), "builder:\n  allow: []\n");
    builder.git("commit", "-qam", "drop builder.allow");
    expect(frozen("builder").permissions.allow).toContain("Bash(sh tools/check.sh *)");
  }, 90_000);
});

describe("a hand-written settings file never widens a read-only role", () => {
  it("effectiveSettings gives builder commands to the builder only", () => {
    const commands = ["sh tools/check.sh *"];
    expect(effectiveSettings("builder", { builderCommands: commands }).permissions.allow).toContain(
      "Bash(sh tools/check.sh *)",
    );
    for (const role of ["architect", "reviewer", "security"] as const) {
      expect(
        effectiveSettings(role, { builderCommands: commands }).permissions.allow.join(),
      ).not.toContain("tools/check.sh");
    }
  });
  it("a pattern that reaches a denied command is refused when settings are written", () => {
    expect(() => effectiveSettings("builder", { builderCommands: ["curl *"] })).toThrow(
      /builder command refused: "curl \*" covers commands the builder may never run/,
    );
  });
});
