import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, OUTPUTS, REPO, validOutput } from "../roles/output-schema-fixtures.js";
import { fake } from "../secrets/fake-secrets.js";

const FORGE = join(REPO, "bin", "forge.js");
let scratch: string;

beforeAll(() => {
  const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: REPO, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
  scratch = mkdtempSync(join(tmpdir(), "forge-check-output-"));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function forge(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [FORGE, "check-output", ...args], {
    cwd: scratch,
    input: input ?? "",
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function file(name: string, content: unknown): string {
  const path = join(scratch, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("forge check-output", () => {
  it("exits 0 and prints the PASS decision for a recorded envelope file", () => {
    const run = forge(["--role", "reviewer", join(OUTPUTS, "reviewer-pass.json")]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      role: "reviewer",
      verdict: "PASS",
      reasons: ["reviewer wrote PASS in schema-valid structured output"],
      overridden: false,
    });
  });

  it("reads stdin by default and with -", () => {
    const text = JSON.stringify(validOutput("builder"));
    expect(forge(["--role", "builder"], text).code).toBe(0);
    expect(forge(["--role", "builder", "-"], text).code).toBe(0);
  });

  it("exits 1 on FAIL: no structured output, errored run, not JSON", () => {
    const missing = forge([
      "--role",
      "reviewer",
      join(OUTPUTS, "reviewer-no-structured-output.json"),
    ]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).reasons).toContain(
      "no structured output (structured_output is null or missing)",
    );
    const errored = { ...envelope("security-pass"), is_error: true };
    expect(forge(["--role", "security"], JSON.stringify(errored)).code).toBe(1);
    const text = forge(["--role", "architect"], "I think this is fine. PASS");
    expect(text.code).toBe(1);
    expect(JSON.parse(text.stdout)).toEqual({
      role: "architect",
      verdict: "FAIL",
      reasons: ["output is not JSON"],
      overridden: false,
    });
    expect(forge(["--role", "architect"], "").code).toBe(1);
  });

  it("security: a fake token in a finding fails, overridden, and never appears in the output", () => {
    const token = fake.githubToken();
    const out = {
      ...validOutput("security"),
      findings: [{ severity: "minor", location: "general", description: `leaked ${token}` }],
    };
    const run = forge(
      ["--role", "security"],
      JSON.stringify({ ...envelope("security-pass"), structured_output: out }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain(token);
    expect(run.stderr).not.toContain(token);
    const decision = JSON.parse(run.stdout);
    expect(decision).toMatchObject({ role: "security", verdict: "FAIL", overridden: true });
    expect(run.stdout).toContain("[REDACTED:github]");
  });

  it("security: --diff FILE feeds the diff; a secret there fails", () => {
    const diff = file(
      "change.diff",
      `+++ b/.npmrc\n+//registry.npmjs.org/:_authToken=${fake.npmToken()}\n`,
    );
    const run = forge(["--role", "security", "--diff", diff, join(OUTPUTS, "security-pass.json")]);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain(fake.npmToken());
    expect(JSON.parse(run.stdout).reasons[0]).toMatch(/^secret in the diff in \.npmrc \(npm\)/);
    const clean = file("clean.diff", "+++ b/a.ts\n+export const a = 1;\n");
    expect(
      forge(["--role", "security", "--diff", clean, join(OUTPUTS, "security-pass.json")]).code,
    ).toBe(0);
  });

  it("exits 2 on bad usage: unknown role, missing role, missing file, missing diff, both on stdin", () => {
    const pass = join(OUTPUTS, "reviewer-pass.json");
    const cases = [
      ["--role", "auditor", pass],
      [pass],
      ["--role", "reviewer", join(scratch, "nope.json")],
      ["--role", "reviewer", scratch],
      ["--role", "security", "--diff", join(scratch, "nope.diff"), pass],
      ["--role", "security", "--diff", "-", "-"],
      ["--role", "reviewer", "--bogus", pass],
    ];
    for (const args of cases) {
      const run = forge(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout, args.join(" ")).toBe("");
    }
    expect(forge(["--role", "auditor", pass]).stderr).toContain('unknown role "auditor"');
  });
});
