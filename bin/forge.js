#!/usr/bin/env node
// Thin dispatcher: `forge guard` loads only the guard bundle (it runs on every agent tool
// call, so start-up time matters); every other command loads the full CLI.
//
// Security: Claude Code treats a hook that exits 1 or crashes as "allow". If the guard
// bundle cannot even be loaded (missing build, broken install) we must still deny, so the
// import failure is turned into exit 2 with the reason on stderr.
if (process.argv[2] === "guard") {
  try {
    await import("../dist/guard.js");
  } catch (error) {
    process.stderr.write(`forge guard could not start, denying: ${String(error)}\n`);
    process.exit(2);
  }
} else {
  await import("../dist/cli.js");
}
