// `node bin/forge-guard.cjs --role <role>` with FORGE_GUARD_SOCKET set (the runner sets it in a
// bwrap box that runs the guard server): ask the server, print its answer. If there is no
// usable answer the guard decides here, in this process, with the stdin already read — the
// same decision, only slower. The safety net is installed first, so every path still ends in
// 0 or 2 within the watchdog.
import { createRequire } from "node:module";
import { installSafetyNet, watchdogMs } from "../guard/fail-closed.js";
import { askGuardServer } from "../guard/guard-client.js";
import { MAX_MESSAGE_BYTES } from "../guard/guard-protocol.js";
import { readAll } from "../guard/read-all.js";
import { writeAll } from "./write-all.js";

/** Leaves the in-process fallback most of the watchdog (5 s) when the server is stuck. */
const SERVER_TIMEOUT_MS = 1_500;
const WATCHDOG_MS = 5_000;

export function startGuardClient(argv: readonly string[], socketPath: string): void {
  const net = installSafetyNet(watchdogMs(process.env, WATCHDOG_MS));
  void (async () => {
    let stdin: string;
    try {
      stdin = await readAll(process.stdin, MAX_MESSAGE_BYTES / 2);
    } catch (error) {
      writeAll(
        2,
        `forge guard: ${error instanceof Error ? error.message : String(error)}; denying\n`,
      );
      return net.finish(2);
    }
    const env = {
      ...(process.env.CLAUDE_PROJECT_DIR
        ? { CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR }
        : {}),
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
    };
    const answer = await askGuardServer(socketPath, { v: 1, argv, stdin, env }, SERVER_TIMEOUT_MS);
    if (answer) {
      if (answer.stdout) writeAll(1, answer.stdout);
      if (answer.stderr) writeAll(2, answer.stderr);
      return net.finish(answer.code);
    }
    // No usable answer: decide here (the full guard bundle, loaded only now).
    const guard = createRequire(import.meta.url)("./guard.cjs") as {
      startGuard(argv: readonly string[], options: { stdin: string; net: typeof net }): void;
    };
    guard.startGuard(argv, { stdin, net });
  })();
}
