// Process-wide safety net for the hook: whatever goes wrong ends in exit code 2.
// Claude Code treats exit 1, a crash and a hook timeout as "allow", so:
// - uncaught exceptions and unhandled rejections exit 2;
// - a watchdog exits 2 if no decision is out in time (a hung stdin or parser), well before
//   Claude Code's own hook timeout;
// - an 'exit' listener turns any exit that did not come from a finished decision (an empty
//   event loop with a pending promise, a stray process.exit(1)) into exit 2.
// Limit: the watchdog cannot interrupt synchronous code; every synchronous step is bounded
// instead (input size, parse budget, glob entry cap, nesting depth).

import { writeSync } from "node:fs";

export interface SafetyNet {
  /** Exit with the decision's code once its output is written. */
  finish(code: 0 | 2): never;
}

export function installSafetyNet(watchdogMs: number): SafetyNet {
  let finished = false;
  const fail = (reason: string): never => {
    finished = true;
    try {
      // fd 2 directly: process.stderr on a pipe would load net and stream first.
      writeSync(2, `forge guard: ${reason}; denying\n`);
    } finally {
      process.exit(2);
    }
  };
  process.on("uncaughtException", (error) => fail(`internal error: ${String(error)}`));
  process.on("unhandledRejection", (error) => fail(`internal error: ${String(error)}`));
  process.on("exit", (code) => {
    if (!finished || (code !== 0 && code !== 2)) process.exitCode = 2;
  });
  const timer = setTimeout(() => fail(`no decision within ${watchdogMs} ms`), watchdogMs);
  return {
    finish(code) {
      finished = true;
      clearTimeout(timer);
      process.exit(code);
    },
  };
}

/** The watchdog may be shortened (tests), never lengthened past `max`. */
export function watchdogMs(env: Readonly<Record<string, string | undefined>>, max: number): number {
  const asked = Number(env.FORGE_GUARD_WATCHDOG_MS);
  return Number.isFinite(asked) && asked > 0 && asked < max ? asked : max;
}
