// `forge guard --role <role>`: the PreToolUse hook, bundled on its own as CommonJS
// (dist/guard.cjs, started by bin/forge-guard.cjs) because it runs on every tool call of every
// agent and must start close to bare `node`. Measured: an ESM entry pays for Node's ESM loader,
// `process.stdin`/`stdout` on a pipe load `net` and `stream`, and an external CJS dependency
// goes through the ESM→CJS translator — together more than the guard's own work. So: a CJS
// bundle with its dependencies inlined, and answers written with fs.writeSync. tree-sitter loads lazily, only for Bash commands that are not plain word lists.
import { lstatSync, readFileSync, realpathSync, writeSync } from "node:fs";
import { lazyBashParser, parserKindFromEnv } from "../guard/bash-parser.js";
import { installSafetyNet, watchdogMs } from "../guard/fail-closed.js";
import { realDirReader } from "../guard/glob-expand.js";
import { MAX_STDIN_BYTES, readAll, runGuard, WATCHDOG_MS } from "../guard/hook-io.js";

const net = installSafetyNet(watchdogMs(process.env, WATCHDOG_MS));

// Test-only ways to reach the safety net (they can only cause a denial).
if (process.env.FORGE_GUARD_TEST_THROW === "uncaught") {
  setImmediate(() => {
    throw new Error("test-only uncaught exception");
  });
} else if (process.env.FORGE_GUARD_TEST_THROW === "rejection") {
  void Promise.reject(new Error("test-only unhandled rejection"));
} else if (process.env.FORGE_GUARD_TEST_THROW === "exit1") {
  writeSync(2, "forge guard: test-only exit 1\n");
  process.exit(1); // the safety net's exit listener must turn this into 2
}

/** Writes all of `text` to `fd` (a short write on a pipe is continued, never dropped). */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * The runner sets FORGE_ROLE_PROFILE (the step's profile, read-only in the box) and
 * FORGE_ROLE_LEDGER (the hash-chained ledger). The gate is loaded only then; an unreadable
 * profile throws, which runGuard turns into a denial (exit 2).
 */
function roleGateFromEnv(env: NodeJS.ProcessEnv) {
  const profileFile = env.FORGE_ROLE_PROFILE;
  const ledgerFile = env.FORGE_ROLE_LEDGER;
  if (!profileFile || !ledgerFile) return {};
  return {
    roleGate: async (input: { tool_name: string; tool_input: unknown; cwd: string }) => {
      const profile = JSON.parse(readFileSync(profileFile, "utf8"));
      // Matching first; the ledger (and its crypto) only loads for a call that is refused.
      const { matchDisallowed } = await import("../policy/role-gate-match.js");
      if (
        matchDisallowed(profile, input.tool_name, input.tool_input, { cwd: input.cwd }) === null
      ) {
        return null;
      }
      const { enforceRoleGate } = await import("../policy/role-gate.js");
      const r = enforceRoleGate({
        profile,
        tool: input.tool_name,
        input: input.tool_input,
        ledgerFile,
        cwd: input.cwd,
        ...(env.FORGE_RUN_ID ? { runId: env.FORGE_RUN_ID } : {}),
      });
      return r.denied ? r.reason : null;
    },
  };
}

// bin/forge.js passes `guard` as the first argument; bin/forge-guard.cjs does not.
const argv = process.argv.slice(process.argv[2] === "guard" ? 3 : 2);

runGuard(
  argv,
  {
    // process.stdin, not a synchronous read of fd 0: the watchdog must be able to fire on a
    // stdin that never closes. Claude Code hands hooks a socket, which only a stream reads
    // without blocking (a pending fs.read on the thread pool also kept process.exit waiting).
    readStdin: () => readAll(process.stdin, MAX_STDIN_BYTES),
    writeStdout: async (text) => writeAll(1, text),
    writeStderr: (text) => writeAll(2, text),
    env: process.env,
  },
  {
    parser: lazyBashParser(parserKindFromEnv(process.env)),
    lstat: lstatSync,
    realpath: realpathSync,
    dirs: realDirReader,
    env: { CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR, HOME: process.env.HOME },
    ...roleGateFromEnv(process.env),
  },
).then((code) => net.finish(code));
