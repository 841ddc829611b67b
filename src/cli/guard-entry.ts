// `forge guard --role <role>`: the PreToolUse hook, bundled on its own as CommonJS
// (dist/guard.cjs, started by bin/forge-guard.cjs) because it runs on every tool call of every
// agent and must start close to bare `node`. Measured: an ESM entry pays for Node's ESM loader,
// `process.stdin`/`stdout` on a pipe load `net` and `stream`, and an external CJS dependency
// goes through the ESM→CJS translator — together more than the guard's own work. So: a CJS
// bundle with its dependencies inlined, and answers written with fs.writeSync. The launchers
// (bin/forge-guard.cjs, bin/forge.js) call startGuard; the in-box guard server (guard-server)
// uses processGuardDeps. tree-sitter loads lazily, only for Bash commands that are not plain word lists.
import { lstatSync, readFileSync, realpathSync, writeSync } from "node:fs";
import { lazyBashParser, parserKindFromEnv } from "../guard/bash-parser.js";
import type { GuardDeps } from "../guard/decide.js";
import { installSafetyNet, type SafetyNet, watchdogMs } from "../guard/fail-closed.js";
import { realDirReader } from "../guard/glob-expand.js";
import { MAX_STDIN_BYTES, readAll, runGuard, WATCHDOG_MS } from "../guard/hook-io.js";
import { writeAll } from "./write-all.js";

/** Test-only ways to reach the safety net (they can only cause a denial). */
function testThrows(): void {
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

/** The guard's dependencies on this process: the real file system, the hook's environment. */
export function processGuardDeps(env: NodeJS.ProcessEnv): GuardDeps {
  return {
    parser: lazyBashParser(parserKindFromEnv(env)),
    lstat: lstatSync,
    realpath: realpathSync,
    dirs: realDirReader,
    env: { CLAUDE_PROJECT_DIR: env.CLAUDE_PROJECT_DIR, HOME: env.HOME },
    ...roleGateFromEnv(env),
  };
}

export interface StartOptions {
  /** stdin already read by the launcher (the server client's fallback). */
  readonly stdin?: string;
  /** The launcher's safety net, when it installed one already. */
  readonly net?: SafetyNet;
}

/**
 * One hook run in this process: `argv` without the node and script words (and without
 * `guard`). Exits the process with 0 or 2 when the decision is out.
 */
export function startGuard(argv: readonly string[], options: StartOptions = {}): void {
  const net = options.net ?? installSafetyNet(watchdogMs(process.env, WATCHDOG_MS));
  testThrows();
  const pre = options.stdin;
  runGuard(
    argv,
    {
      // process.stdin, not a synchronous read of fd 0: the watchdog must be able to fire on a
      // stdin that never closes. Claude Code hands hooks a socket, which only a stream reads
      // without blocking (a pending fs.read on the thread pool also kept process.exit waiting).
      readStdin: () =>
        pre !== undefined ? Promise.resolve(pre) : readAll(process.stdin, MAX_STDIN_BYTES),
      writeStdout: async (text) => writeAll(1, text),
      writeStderr: (text) => writeAll(2, text),
      env: process.env,
    },
    processGuardDeps(process.env),
  ).then((code) => net.finish(code));
}
