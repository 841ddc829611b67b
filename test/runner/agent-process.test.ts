// runAgentProcess and cancellation: a step cancelled before its box starts starts nothing;
// one cancelled while running ends, reported as cancelled.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentProcess } from "../../src/runner/agent-process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "forge-agent-proc-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function touching(file: string, thenSleep = 0) {
  return {
    command: "/bin/sh",
    args: ["-c", `touch "$1"; sleep ${thenSleep}`, "agent", file],
    env: { PATH: "/usr/bin:/bin" },
  };
}

describe("runAgentProcess cancellation", () => {
  it("already cancelled: nothing is started, the result says cancelled, onSpawn still runs", async () => {
    const marker = join(dir, "started");
    const controller = new AbortController();
    controller.abort();
    let spawned = 0;
    const r = await runAgentProcess(touching(marker), {
      timeoutMs: 10_000,
      signal: controller.signal,
      onSpawn: () => spawned++,
    });
    await new Promise((res) => setTimeout(res, 200));
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(existsSync(marker)).toBe(false);
    expect(spawned).toBe(1); // the runner closes its copy of the guard socket there
  });

  it("cancelled while running: the process ends and the result says cancelled", async () => {
    const marker = join(dir, "started");
    const controller = new AbortController();
    const pending = runAgentProcess(touching(marker, 30), {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    const end = Date.now() + 10_000;
    while (!existsSync(marker) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const r = await pending;
    expect(r.cancelled).toBe(true);
    expect(r.signal).toBe("SIGKILL");
  });
});

/** A fake agent: prints stream-json lines, sleeping between them, like claude on stdout. */
function streaming(script: string) {
  return { command: "/bin/sh", args: ["-c", script], env: { PATH: "/usr/bin:/bin" } };
}

const INIT = `{"type":"system","subtype":"init"}`;
const RETRY = `{"type":"system","subtype":"api_retry","attempt":1,"error":"unknown","error_status":null}`;
const TOOL = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}]}}`;
const TOOL_DONE = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`;
const RESULT = `{"type":"result","subtype":"success","is_error":false}`;

describe("the idle limit", () => {
  it("ends an agent that prints nothing after its init line, saying why", async () => {
    const started = Date.now();
    const r = await runAgentProcess(streaming(`echo '${INIT}'; sleep 30`), {
      timeoutMs: 60_000,
      idleTimeoutMs: 500,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.idle).toMatch(/no progress for 0.5 s .*FORGE_IDLE_TIMEOUT/);
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBe("SIGKILL");
    // The judge that words only the exit still says why (stderr's tail).
    expect(r.stderr).toContain(r.idle);
  });

  it("does not count the endpoint's retry notices as progress, and names them", async () => {
    const r = await runAgentProcess(
      streaming(`echo '${INIT}'; while true; do echo '${RETRY}'; sleep 0.1; done`),
      { timeoutMs: 60_000, idleTimeoutMs: 800 },
    );
    expect(r.idle).toMatch(/the model endpoint failed \d+ time\(s\) \(last: error unknown\)/);
    expect(r.idle).toMatch(/ANTHROPIC_BASE_URL/);
  });

  it("does not end an agent while one of its tool calls runs, nor one that keeps talking", async () => {
    const r = await runAgentProcess(
      streaming(
        `echo '${INIT}'; echo '${TOOL}'; sleep 1.5; echo '${TOOL_DONE}'; ` +
          `for i in 1 2 3 4 5 6; do echo '{"type":"assistant","message":{"content":[{"type":"text","text":"."}]}}'; sleep 0.3; done; echo '${RESULT}'`,
      ),
      { timeoutMs: 60_000, idleTimeoutMs: 700 },
    );
    expect(r.idle).toBeUndefined();
    expect(r.exitCode).toBe(0);
  });

  it("0 turns it off", async () => {
    const r = await runAgentProcess(streaming(`echo '${INIT}'; sleep 1`), {
      timeoutMs: 60_000,
      idleTimeoutMs: 0,
    });
    expect(r.idle).toBeUndefined();
    expect(r.exitCode).toBe(0);
  });
});

describe("failed tool calls as progress", () => {
  it("a command that exited non-zero is work, not a refusal; a guard refusal is one", async () => {
    const exit = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 2\\nnot ok 1"}]}}`;
    const denied = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":".env"}}]}}`;
    const refusal = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"PreToolUse:Read hook error: forge guard: .env is a secret path (rule: dotenv)"}]}}`;
    const tools: string[] = [];
    const refusals: string[] = [];
    const r = await runAgentProcess(
      // printf: dash's echo would turn the JSON's backslash-n into a line break.
      streaming(`printf '%s\\n' '${TOOL}' '${exit}' '${denied}' '${refusal}'`),
      {
        timeoutMs: 30_000,
        onToolUse: (t) => tools.push(t),
        onRefusal: (t) => refusals.push(t),
      },
    );
    expect(r.exitCode).toBe(0);
    expect(tools).toEqual(["Bash: make test", "Bash: make test → exit 2", "Read: .env"]);
    expect(refusals).toEqual([
      "PreToolUse:Read hook error: forge guard: .env is a secret path (rule: dotenv)",
    ]);
  });
});
