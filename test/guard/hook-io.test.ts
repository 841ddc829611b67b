// runGuard with in-memory stdin/stdout: the exit-code contract without spawning processes.
import { describe, expect, it } from "vitest";
import { parseHookInput } from "../../src/guard/hook-input.js";
import { denyJson, parseGuardArgs, runGuard } from "../../src/guard/hook-io.js";
import { makeDeps } from "./guard-kit.js";

function io(stdin: string, env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      readStdin: async () => stdin,
      writeStdout: async (t: string) => {
        out.stdout += t;
      },
      writeStderr: (t: string) => {
        out.stderr += t;
      },
      env,
    },
  };
}

const input = (tool: string, toolInput: object) =>
  JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: toolInput,
    cwd: "/w",
  });

describe("runGuard", () => {
  it("deny: JSON on stdout, code 0", async () => {
    const { io: i, out } = io(input("Bash", { command: "git push" }));
    expect(await runGuard(["--role", "reviewer"], i, makeDeps())).toBe(0);
    expect(JSON.parse(out.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(out.stderr).toBe("");
  });
  it("a role-gate violation: a deny that also stops the agent, code 0", async () => {
    const { io: i, out } = io(input("Bash", { command: "make test" }));
    const deps = { ...makeDeps(), roleGate: async () => "ROLE_GATE_VIOLATION: denied" };
    expect(await runGuard(["--role", "builder"], i, deps)).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      continue: false,
      stopReason: "forge guard: ROLE_GATE_VIOLATION: denied",
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "forge guard: ROLE_GATE_VIOLATION: denied",
      },
    });
  });
  it("no decision: nothing on stdout, code 0", async () => {
    const { io: i, out } = io(input("Bash", { command: "git status" }));
    expect(await runGuard(["--role", "reviewer"], i, makeDeps())).toBe(0);
    expect(out).toEqual({ stdout: "", stderr: "" });
  });
  it("errors: code 2, reason on stderr, nothing on stdout", async () => {
    for (const [argv, stdin] of [
      [["--role", "reviewer"], "{"],
      [["--role", "root"], input("Bash", { command: "ls" })],
      [["--role"], input("Bash", { command: "ls" })],
      [["--role", "builder", "extra"], input("Bash", { command: "ls" })],
      [["--role", "builder"], input("Glob", { pattern: 5 })],
    ] as const) {
      const { io: i, out } = io(stdin);
      expect(await runGuard(argv, i, makeDeps())).toBe(2);
      expect(out.stdout).toBe("");
      expect(out.stderr).toMatch(/^forge guard: .+; denying\n$/);
    }
  });
});

describe("pieces", () => {
  it("parses --role in both spellings", () => {
    expect(parseGuardArgs(["--role", "architect"])).toBe("architect");
    expect(parseGuardArgs(["--role=security"])).toBe("security");
    expect(() => parseGuardArgs(["--role=Builder"])).toThrow(/unknown role/);
  });
  it("the deny JSON never says allow", () => {
    expect(JSON.parse(denyJson("x"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "x",
      },
    });
  });
  it("rejects input it does not understand", () => {
    expect(() =>
      parseHookInput(
        '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"cwd":"rel"}',
      ),
    ).toThrow(/absolute/);
    expect(() =>
      parseHookInput(
        '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":[],"cwd":"/"}',
      ),
    ).toThrow(/tool_input/);
    expect(() =>
      parseHookInput(
        '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"cwd":"/a\\nb"}',
      ),
    ).toThrow(/control/);
  });
});
