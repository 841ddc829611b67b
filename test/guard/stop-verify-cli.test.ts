import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, removeDir, writeFiles } from "./stop-verify-repo.js";

const ROOT = join(import.meta.dirname, "..", "..");

beforeAll(() => {
  const build = spawnSync("node", ["scripts/build.mjs"], { cwd: ROOT, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function runHook(stdin: string, extraEnv: Record<string, string>) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  if (!("CLAUDE_PROJECT_DIR" in extraEnv)) delete env.CLAUDE_PROJECT_DIR;
  if (!("FORGE_BASE_REF" in extraEnv)) delete env.FORGE_BASE_REF;
  delete env.FORGE_VERIFY_TIMEOUT;
  return spawnSync("node", [join(ROOT, "bin", "forge.js"), "stop-verify"], {
    input: stdin,
    env,
    encoding: "utf8",
  });
}

function input(cwd: string, active = false): string {
  return JSON.stringify({
    session_id: "s-cli",
    transcript_path: "/nonexistent/t.jsonl",
    cwd,
    hook_event_name: "Stop",
    stop_hook_active: active,
  });
}

describe("node bin/forge.js stop-verify (whole process)", () => {
  it("prints a block decision and exits 0 when the base verify.sh fails", () => {
    const { dir, sha } = makeRepo({ "scripts/verify.sh": "echo 'unit tests: FAIL'\nexit 7\n" });
    dirs.push(dir);
    // The builder "fixes" verify in the working tree; the base copy still runs.
    writeFiles(dir, { "scripts/verify.sh": "exit 0\n" });
    const run = runHook(input(dir), { FORGE_BASE_REF: sha });
    expect(run.status).toBe(0);
    const decision = JSON.parse(run.stdout) as { decision: string; reason: string };
    expect(decision.decision).toBe("block");
    expect(decision.reason).toContain(`scripts/verify.sh (from base ${sha}) failed with exit 7`);
    expect(decision.reason).toContain("unit tests: FAIL");
  });

  it("is silent and exits 0 when verify passes", () => {
    const { dir, sha } = makeRepo({ "scripts/verify.sh": "echo fine\n" });
    dirs.push(dir);
    const run = runHook(input(dir), { FORGE_BASE_REF: sha });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
  });

  it("is silent when stop_hook_active is true", () => {
    const { dir, sha } = makeRepo({ "scripts/verify.sh": "exit 1\n" });
    dirs.push(dir);
    const run = runHook(input(dir, true), { FORGE_BASE_REF: sha });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
  });

  it("blocks on garbage stdin and on a missing FORGE_BASE_REF", () => {
    const { dir } = makeRepo({ "scripts/verify.sh": "exit 0\n" });
    dirs.push(dir);
    for (const [stdin, env] of [
      ["not json at all", { CLAUDE_PROJECT_DIR: dir, FORGE_BASE_REF: "0".repeat(40) }],
      [input(dir), {}],
    ] as const) {
      const run = runHook(stdin, env);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ decision: "block" });
    }
  });
});
