#!/usr/bin/env node
// The PreToolUse hook as the effective settings run it: `node <root>/bin/forge-guard.cjs
// --role <role>` (the same as `forge guard --role <role>`, without the ESM dispatcher, whose
// loader alone costs more than the guard's work). In a bwrap box the runner also starts the
// guard server and sets FORGE_GUARD_SOCKET: the hook then only asks it (dist/guard-client.cjs),
// and decides here itself whenever the server gives no usable answer.
//
// Security: Claude Code treats a hook that exits 1 or crashes as "allow". If a bundle cannot
// even be loaded (missing build, broken install) we must still deny: exit 2, reason on stderr.
//
// Tried and left out: V8's code cache for the bundle (vm.Script cachedData). It saved ~3 % of
// the start-up here, and a corrupted cache file crashed V8 (SIGTRAP, exit 133) instead of being
// rejected — a crash is an "allow" to Claude Code.
"use strict";
try {
  const socket = process.env.FORGE_GUARD_SOCKET;
  if (socket) require("../dist/guard-client.cjs").startGuardClient(process.argv.slice(2), socket);
  else require("../dist/guard.cjs").startGuard(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`forge guard could not start, denying: ${String(error)}\n`);
  process.exit(2);
}
