// `forge guard --role <role>`: the PreToolUse hook, bundled on its own (dist/guard.js) so it
// starts close to bare `node`. It imports only the guard and node built-ins eagerly;
// tree-sitter loads lazily, and only for Bash commands that are not plain word lists.
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { lazyBashParser } from "../guard/bash-parser.js";
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
  process.stderr.write("forge guard: test-only exit 1\n");
  process.exit(1); // the safety net's exit listener must turn this into 2
}

const code = await runGuard(
  process.argv.slice(3),
  {
    readStdin: () => readAll(process.stdin, MAX_STDIN_BYTES),
    writeStdout: (text) =>
      new Promise((resolve, reject) =>
        process.stdout.write(text, (error) => (error ? reject(error) : resolve())),
      ),
    writeStderr: (text) => {
      process.stderr.write(text);
    },
    env: process.env,
  },
  {
    parser: lazyBashParser(),
    lstat: lstatSync,
    realpath: realpathSync,
    dirs: realDirReader,
    env: { CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR, HOME: process.env.HOME },
    ...roleGateFromEnv(process.env),
  },
);
net.finish(code);

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
      const { enforceRoleGate } = await import("../policy/role-gate.js");
      const profile = JSON.parse(readFileSync(profileFile, "utf8"));
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
