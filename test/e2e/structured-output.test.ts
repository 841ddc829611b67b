/**
 * The output contract end to end (R2.1, R3.1, R3.2): the REAL Claude Code CLI gets
 * `--json-schema "$(cat schemas/<role>.json)"`, the scripted model answers through the
 * StructuredOutput tool, and `forge check-output --role <role>` judges the CLI's JSON result.
 * A run that never produces valid structured output must come out FAIL.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ROLES, type Role } from "../../src/roles/role-names.js";
import { effectiveSettings } from "../../src/roles/settings.js";
import { ensureBuilt } from "../harness/build.js";
import { type ClaudeRunResult, REPO_ROOT, runClaude } from "../harness/claude-run.js";
import type { Script } from "../harness/model-server.js";
import { createTempRepo, type TempRepo } from "../harness/temp-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => ensureBuilt());

const schemaText = (role: Role) => readFileSync(join(REPO_ROOT, "schemas", `${role}.json`), "utf8");
const passFixture = (role: Role): Record<string, unknown> =>
  JSON.parse(
    readFileSync(
      join(REPO_ROOT, "fixtures", "model-scripts", "structured", `${role}.pass.json`),
      "utf8",
    ),
  );

function repo(): TempRepo {
  const r = createTempRepo();
  cleanups.push(() => r.cleanup());
  return r;
}

async function runRole(role: Role, script: Script): Promise<ClaudeRunResult> {
  const r = repo();
  return runClaude({
    script,
    cwd: r.dir,
    env: { FORGE_BASE_REF: r.base },
    settings: effectiveSettings(role),
    jsonSchema: schemaText(role),
  });
}

function checkOutput(role: Role, stdout: string): { status: number | null; decision: unknown } {
  const r = spawnSync(
    process.execPath,
    [join(REPO_ROOT, "bin", "forge.js"), "check-output", "--role", role],
    { input: stdout, encoding: "utf8" },
  );
  let decision: unknown;
  try {
    decision = JSON.parse(r.stdout);
  } catch {
    decision = r.stdout;
  }
  return { status: r.status, decision };
}

describe.each(ROLES)("%s output through the real CLI", (role) => {
  it("a schema-valid StructuredOutput call passes forge check-output", async () => {
    const output = passFixture(role);
    const run = await runRole(role, { turns: [{ structured: output }] });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json?.subtype).toBe("success");
    expect(run.json?.structured_output).toEqual(output);
    // The CLI accepted our schema and the call: no error went back to the model.
    expect(run.toolResults.filter((t) => t.isError)).toEqual([]);
    const { status, decision } = checkOutput(role, run.stdout);
    expect(decision).toMatchObject({ role, verdict: "PASS" });
    expect(status).toBe(0);
  });

  it("no StructuredOutput call: no structured_output, and check-output FAILs", async () => {
    const run = await runRole(role, { turns: [{ text: "All good, PASS." }] });
    expect(run.exitCode, run.stderr).toBe(0);
    // The CLI still says success; only the missing structured output tells.
    expect(run.json?.subtype).toBe("success");
    expect(run.json?.is_error).toBe(false);
    expect(run.json?.structured_output ?? null).toBeNull();
    const { status, decision } = checkOutput(role, run.stdout);
    expect(decision).toMatchObject({ role, verdict: "FAIL" });
    expect(status).toBe(1);
  });
});

describe("schema enforcement by the CLI", () => {
  it("a too-short summary is refused by the CLI itself; a valid retry passes", async () => {
    const good = passFixture("reviewer");
    const run = await runRole("reviewer", {
      turns: [{ structured: { ...good, summary: "test" } }, { structured: good }],
    });
    const refused = run.toolResults.filter((t) => t.name === "StructuredOutput" && t.isError);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.content).toMatch(/summary/);
    expect(run.json?.structured_output).toEqual(good);
    expect(checkOutput("reviewer", run.stdout).status).toBe(0);
  });

  it("only invalid attempts: FAIL, even though the model wrote PASS", async () => {
    const bad = { ...passFixture("security"), summary: "test" };
    const run = await runRole("security", {
      turns: [{ structured: bad }, { structured: bad }],
      finalText: "PASS",
    });
    expect(run.json?.structured_output ?? null).toBeNull();
    const { status, decision } = checkOutput("security", run.stdout);
    expect(decision).toMatchObject({ verdict: "FAIL" });
    expect(status).toBe(1);
  });
});
