// The hook trusts the in-box server only for answers shaped exactly like a guard decision;
// everything else (an "allow", garbage, silence, a hang) makes it decide in its own process.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askGuardServer } from "../../src/guard/guard-client.js";
import { parseAnswer, parseRequest } from "../../src/guard/guard-protocol.js";
import { ensureBuilt } from "../harness/build.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DENY = `${JSON.stringify({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "deny",
    permissionDecisionReason: "forge guard: x",
  },
})}\n`;
// The role gate's denial also ends the agent.
const DENY_STOP = `{"continue":false,"stopReason":"forge guard: x",${DENY.slice(1)}`;
const answer = (a: Record<string, unknown>) => JSON.stringify({ v: 1, stderr: "", ...a });

describe("parseAnswer", () => {
  it("accepts no decision, a deny, and an error", () => {
    expect(parseAnswer(answer({ code: 0, stdout: "" }))?.code).toBe(0);
    expect(parseAnswer(answer({ code: 0, stdout: DENY }))?.stdout).toBe(DENY);
    expect(parseAnswer(answer({ code: 0, stdout: DENY_STOP }))?.stdout).toBe(DENY_STOP);
    expect(parseAnswer(answer({ code: 2, stdout: "", stderr: "why" }))?.stderr).toBe("why");
  });
  it.each([
    ["allow", answer({ code: 0, stdout: DENY.replace('"deny"', '"allow"') })],
    ["ask", answer({ code: 0, stdout: DENY.replace('"deny"', '"ask"') })],
    ["extra output key", answer({ code: 0, stdout: `{"continue":true,${DENY.slice(1)}` })],
    [
      "a stop without its reason",
      answer({ code: 0, stdout: `{"continue":false,${DENY.slice(1)}` }),
    ],
    ["a stop beside an allow", answer({ code: 0, stdout: DENY_STOP.replace('"deny"', '"allow"') })],
    ["a stop and a third key", answer({ code: 0, stdout: `{"x":1,${DENY_STOP.slice(1)}` })],
    ["text on stdout", answer({ code: 0, stdout: "ok\n" })],
    ["exit 1", answer({ code: 1, stdout: "" })],
    ["exit 2 with stdout", answer({ code: 2, stdout: DENY })],
    ["no version", JSON.stringify({ code: 0, stdout: "", stderr: "" })],
    ["garbage", "not json"],
    ["empty", ""],
  ])("refuses %s", (_name, text) => {
    expect(parseAnswer(text)).toBeNull();
  });
});

describe("parseRequest", () => {
  it("keeps argv, stdin and only the two env names", () => {
    const r = parseRequest(
      JSON.stringify({
        v: 1,
        argv: ["--role", "builder"],
        stdin: "{}",
        env: { HOME: "/h", CLAUDE_PROJECT_DIR: "/p", PATH: "/evil" },
      }),
    );
    expect(r).toEqual({
      v: 1,
      argv: ["--role", "builder"],
      stdin: "{}",
      env: { HOME: "/h", CLAUDE_PROJECT_DIR: "/p" },
    });
  });
  it.each([["{}"], ['{"v":1,"argv":[1],"stdin":""}'], ['{"v":2,"argv":[],"stdin":""}'], ["x"]])(
    "refuses %s",
    (text) => expect(parseRequest(text)).toBeNull(),
  );
});

/** A fake server on a unix socket that answers every connection with `reply` (or hangs). */
async function fakeServer(
  dir: string,
  reply: string | null,
): Promise<{ path: string; server: Server }> {
  const path = join(dir, `s-${Math.random().toString(36).slice(2)}.sock`);
  const server = createServer({ allowHalfOpen: true }, (c) => {
    c.on("data", () => {});
    c.on("end", () => {
      if (reply !== null) c.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, server };
}

describe("the hook with FORGE_GUARD_SOCKET", () => {
  let dir = "";
  const servers: Server[] = [];
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), "forge-gp-"));
  });
  afterAll(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const payload = (command: string) =>
    JSON.stringify({
      session_id: "s",
      transcript_path: "/dev/null",
      cwd: ROOT,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command },
    });
  // spawnSync would block this process's event loop, and with it the fake servers: async spawn.
  async function hook(socket: string, command: string) {
    const { spawn } = await import("node:child_process");
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin", "forge-guard.cjs"), "--role", "builder"],
      {
        env: { ...process.env, FORGE_GUARD_SOCKET: socket },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += String(d);
    });
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    child.stdin.end(payload(command));
    const status = await new Promise<number | null>((r) => child.on("exit", r));
    return { status, stdout, stderr };
  }

  it("prints a server's deny as its own (the server is trusted for well-formed answers)", async () => {
    const s = await fakeServer(dir, answer({ code: 0, stdout: DENY }));
    servers.push(s.server);
    const r = await hook(s.path, "git status");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(DENY);
  });

  it.each([
    ["an allow", answer({ code: 0, stdout: DENY.replace('"deny"', '"allow"') })],
    ["garbage", "hello"],
    ["silence (closes at once)", ""],
    ["a hang", null],
  ])("decides itself when the server answers with %s", async (_name, reply) => {
    const s = await fakeServer(dir, reply);
    servers.push(s.server);
    const r = await hook(s.path, 'cat "$(echo .env)"');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(r.stdout).toMatch(/\.env/);
  });

  it("decides itself when there is no server at the path", async () => {
    const r = await hook(join(dir, "missing.sock"), 'cat "$(echo .env)"');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/"deny".*\.env/);
    const ok = await hook(join(dir, "missing.sock"), "git status");
    expect(ok).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("askGuardServer resolves null on a refused connection", async () => {
    const r = await askGuardServer(
      join(dir, "none.sock"),
      { v: 1, argv: [], stdin: "", env: {} },
      500,
    );
    expect(r).toBeNull();
  });
});

describe("spawnSync sanity", () => {
  it("the hook without FORGE_GUARD_SOCKET decides in process", () => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, "bin", "forge-guard.cjs"), "--role", "builder"],
      {
        input: JSON.stringify({
          session_id: "s",
          transcript_path: "/dev/null",
          cwd: ROOT,
          hook_event_name: "PreToolUse",
          tool_name: "Read",
          tool_input: { file_path: ".env" },
        }),
        encoding: "utf8",
      },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/dotenv/);
  });
});
