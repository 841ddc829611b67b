// The hook as Claude Code runs it: `node bin/forge-guard.cjs --role <role>` (the effective
// settings' command; `node bin/forge.js guard …` loads the same bundle) with JSON on stdin.
// deny → JSON on stdout + exit 0; no decision → empty stdout + exit 0; every error → exit 2.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "./guard-kit.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FORGE = join(ROOT, "bin", "forge.js");
const GUARD = join(ROOT, "bin", "forge-guard.cjs");

function payload(tool: string, toolInput: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: "s1",
    transcript_path: "/tmp/t.jsonl",
    cwd: ROOT,
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: toolInput,
    ...extra,
  });
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function guard(input: string, args = ["--role", "builder"], env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [GUARD, ...args], {
    input,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectDeny(run: Run, reason: RegExp): void {
  expect(run.status).toBe(0);
  expect(run.stdout.endsWith("\n")).toBe(true);
  const out = JSON.parse(run.stdout);
  expect(Object.keys(out)).toEqual(["hookSpecificOutput"]);
  expect(out.hookSpecificOutput.hookEventName).toBe("PreToolUse");
  expect(out.hookSpecificOutput.permissionDecision).toBe("deny");
  expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(reason);
}

function expectNoDecision(run: Run): void {
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe("");
  expect(run.status).toBe(0);
}

function expectError(run: Run, reason: RegExp): void {
  expect(run.status).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(reason);
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT });
});

describe("decisions", () => {
  it("denies with the hook JSON and exit 0", () => {
    expectDeny(guard(payload("Bash", { command: "git -C . push" })), /^forge guard: git push/);
    expectDeny(guard(payload("Read", { file_path: ".env" })), /\(rule: dotenv\)/);
  });

  it("denies a parsed command (tree-sitter loads inside the bundle)", () => {
    expectDeny(guard(payload("Bash", { command: "bash -c 'git push' | cat" })), /git push/);
    expectDeny(guard(payload("Bash", { command: "cat .env.example .env" })), /dotenv/);
  });

  it("says nothing for allowed calls — never 'allow'", () => {
    expectNoDecision(guard(payload("Bash", { command: "git status" })));
    expectNoDecision(guard(payload("Bash", { command: 'cat $(ls) | grep x && echo "a b"' })));
    expectNoDecision(guard(payload("Read", { file_path: ".env.example" })));
    expectNoDecision(guard(payload("Write", { file_path: "src/a.ts", content: "x" })));
  });

  it("says nothing for tools it does not govern", () => {
    expectNoDecision(guard(payload("WebFetch", { url: "https://example.com" })));
  });

  it("accepts --role=<role>", () => {
    expectDeny(guard(payload("Bash", { command: "git push" }), ["--role=security"]), /git push/);
  });

  it("`forge guard` through the ESM dispatcher loads the same bundle", () => {
    const r = spawnSync(process.execPath, [FORGE, "guard", "--role", "builder"], {
      input: payload("Bash", { command: "cat $(echo .env)" }),
      encoding: "utf8",
    });
    expectDeny({ status: r.status, stdout: r.stdout, stderr: r.stderr }, /git push|dotenv|\$\(/);
    expectNoDecision(
      (() => {
        const ok = spawnSync(process.execPath, [FORGE, "guard", "--role", "builder"], {
          input: payload("Bash", { command: "git status" }),
          encoding: "utf8",
        });
        return { status: ok.status, stdout: ok.stdout, stderr: ok.stderr };
      })(),
    );
  });
});

describe("every error exits 2 with the reason on stderr", () => {
  it("garbage stdin", () => expectError(guard("not json {"), /stdin is not JSON/));
  it("empty stdin", () => expectError(guard(""), /stdin is not JSON/));
  it("a JSON array", () => expectError(guard("[]"), /not a JSON object/));
  it("missing tool_name", () => {
    const input = JSON.parse(payload("Bash", { command: "ls" }));
    delete input.tool_name;
    expectError(guard(JSON.stringify(input)), /tool_name is missing/);
  });
  it("missing cwd", () => {
    const input = JSON.parse(payload("Bash", { command: "ls" }));
    delete input.cwd;
    expectError(guard(JSON.stringify(input)), /cwd is missing/);
  });
  it("wrong hook event", () => {
    expectError(
      guard(payload("Bash", { command: "ls" }, { hook_event_name: "PostToolUse" })),
      /PreToolUse/,
    );
  });
  it("missing command", () =>
    expectError(guard(payload("Bash", {})), /tool_input.command is missing/));
  it("missing file_path", () => expectError(guard(payload("Read", {})), /file_path is missing/));
  it("a non-string path", () => {
    expectError(guard(payload("Edit", { file_path: 7 })), /file_path is not a string/);
  });
  it("unknown role", () => {
    expectError(guard(payload("Bash", { command: "ls" }), ["--role", "admin"]), /unknown role/);
  });
  it("no role", () => expectError(guard(payload("Bash", { command: "ls" }), []), /usage/));
  it.each(["sync", "uncaught", "rejection", "exit1"])("an exception or stray exit (%s)", (mode) => {
    const run = guard(payload("Bash", { command: "ls" }), undefined, {
      FORGE_GUARD_TEST_THROW: mode,
    });
    expectError(run, /test-only/);
  });

  it("a hung stdin is cut off by the watchdog", async () => {
    const child = spawn(process.execPath, [GUARD, "--role", "builder"], {
      env: { ...process.env, FORGE_GUARD_WATCHDOG_MS: "300" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.write('{"hook_event_name":'); // and never finish
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    child.stdin.destroy();
    expect(code).toBe(2);
    expect(stderr).toMatch(/no decision within 300 ms/);
  });
});

describe("a missing guard bundle", () => {
  let dir = "";
  beforeAll(() => {
    dir = tempDir();
    mkdirSync(join(dir, "bin"));
    copyFileSync(FORGE, join(dir, "bin", "forge.js"));
  });
  afterAll(() => removeDir(dir));

  it.each([
    ["forge.js", ["guard", "--role", "builder"]],
    ["forge-guard.cjs", ["--role", "builder"]],
  ])("still denies (exit 2) through bin/%s", (entry, args) => {
    copyFileSync(join(ROOT, "bin", entry), join(dir, "bin", entry));
    const r = spawnSync(process.execPath, [join(dir, "bin", entry), ...args], {
      input: payload("Bash", { command: "git push" }),
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/could not start, denying/);
  });
});
