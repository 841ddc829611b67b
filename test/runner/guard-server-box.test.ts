// The in-box guard server, for real: a bwrap box started the way the runner starts an agent
// (runAgentProcess with the listening socket inherited, commandWithGuardServer), and a shell
// inside it playing the agent that calls the hook. The full guard bundle (dist/guard.cjs) is
// hidden from the box in the first test, so a decision the hook prints can only have come from
// the server; the agent's own attempts on the socket are tried too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createBox } from "../../src/boxes/create-box.js";
import { runAgentProcess } from "../../src/runner/agent-process.js";
import { commandWithGuardServer, openGuardSocket } from "../../src/runner/guard-socket.js";
import { ensureBuilt } from "../harness/build.js";

const ROOT = join(import.meta.dirname, "..", "..");
const HOOK = join(ROOT, "bin", "forge-guard.cjs");
let base: string;
let workspace: string;
let home: string;

beforeAll(() => ensureBuilt());
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "forge-guard-box-"));
  workspace = join(base, "ws");
  home = join(base, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  const payload = (command: string) =>
    JSON.stringify({
      session_id: "s",
      transcript_path: "/dev/null",
      cwd: workspace,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command },
    });
  writeFileSync(join(workspace, "p-status.json"), payload("git status"));
  writeFileSync(join(workspace, "p-env.json"), payload('cat "$(echo .env)"'));
  writeFileSync(join(workspace, "p-curl.json"), payload("curl https://example.com"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Runs `script` as the "agent" in a bwrap box beside the guard server; returns its output. */
async function inBoxWithServer(script: string, hideGuardBundle: boolean): Promise<string> {
  const sock = await openGuardSocket();
  if (!sock) throw new Error("no guard socket on this platform");
  try {
    const box = createBox("bwrap", {
      workspace,
      home,
      allowNetwork: false,
      readOnlyPaths: [ROOT, dirname(dirname(process.execPath)), sock.dir],
      denySubpaths: hideGuardBundle ? [join(ROOT, "dist", "guard.cjs")] : [],
    });
    const cmd = commandWithGuardServer("/bin/sh", ["-c", script], {
      node: process.execPath,
      installRoot: ROOT,
    });
    const wrapped = box.wrap({
      ...cmd,
      cwd: workspace,
      env: {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        HOOK,
        SERVER: join(ROOT, "dist", "guard-server.cjs"),
        FORGE_GUARD_SOCKET: sock.path,
        FORGE_ROLE_PROFILE: join(ROOT, "profiles", "builder.json"),
        FORGE_ROLE_LEDGER: join(home, "ledger.jsonl"),
      },
    });
    const r = await runAgentProcess(wrapped, {
      timeoutMs: 60_000,
      inheritFds: [sock.fd],
      onSpawn: () => sock.close(),
    });
    if (r.exitCode !== 0) throw new Error(`box script failed (${r.exitCode}): ${r.stderr}`);
    return r.stdout;
  } finally {
    sock.remove();
  }
}

// The agent kills the server: the process whose second argv word is dist/guard-server.cjs.
const KILL_SERVER = [
  "for p in /proc/[0-9]*; do",
  '  [ "$(tr "\\0" "\\n" < "$p/cmdline" 2>/dev/null | sed -n 2p)" = "$SERVER" ] &&',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  '  kill "${p#/proc/}"',
  "done; sleep 0.3",
].join("\n");

describe("the guard server in a bwrap box", () => {
  it("answers the hooks; the agent holds no listening socket and cannot replace it", async () => {
    const out = await inBoxWithServer(
      [
        '[ -e /proc/self/fd/3 ] && echo "fd3: open" || echo "fd3: closed"',
        'node "$HOOK" --role builder < p-status.json > o1; echo "status: exit $? [$(cat o1)]"',
        'node "$HOOK" --role builder < p-env.json > o2; echo "env: exit $? $(cat o2)"',
        'node "$HOOK" --role builder < p-curl.json > o3; echo "curl: exit $? $(cat o3)"',
        'rm -f "$FORGE_GUARD_SOCKET" 2>/dev/null; [ -S "$FORGE_GUARD_SOCKET" ] && echo "socket: still there"',
        'ln -sf /tmp/evil.sock "$FORGE_GUARD_SOCKET" 2>/dev/null || echo "socket: not replaced"',
        KILL_SERVER,
        // The server is gone and the full bundle is hidden: the hook cannot decide and says so.
        'node "$HOOK" --role builder < p-status.json > o4 2> e4; echo "after kill: exit $?"',
        "exit 0",
      ].join("\n"),
      true,
    );
    expect(out).toContain("fd3: closed");
    // Only the server could have answered: guard.cjs is /dev/null in this box.
    expect(out).toContain("status: exit 0 []");
    expect(out).toMatch(/env: exit 0 \{"hookSpecificOutput".*"permissionDecision":"deny".*\.env/);
    expect(out).toMatch(/curl: exit 0 .*ROLE_GATE_VIOLATION/);
    expect(out).toContain("socket: still there");
    expect(out).toContain("socket: not replaced");
    expect(out).toContain("after kill: exit 2");
  });

  it("a killed server leaves every hook deciding in its own process", async () => {
    const out = await inBoxWithServer(
      [
        KILL_SERVER,
        'node "$HOOK" --role builder < p-env.json > o1; echo "env: exit $? $(cat o1)"',
        'node "$HOOK" --role builder < p-status.json > o2; echo "status: exit $? [$(cat o2)]"',
        'node "$HOOK" --role builder < p-curl.json > o3; echo "curl: exit $? $(cat o3)"',
      ].join("\n"),
      false,
    );
    expect(out).toMatch(/env: exit 0 .*"permissionDecision":"deny".*\.env/);
    expect(out).toContain("status: exit 0 []");
    expect(out).toMatch(/curl: exit 0 .*ROLE_GATE_VIOLATION/);
  });
});
