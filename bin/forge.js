#!/usr/bin/env node
// Thin dispatcher. The commands that run inside boxes on every agent action — `guard` (each
// tool call; the effective hook command skips this file: bin/forge-guard.cjs), `stop-verify` (each builder stop) and `scan-secrets` (a control) — load their
// own small bundles, so start-up stays near bare `node`; every other command loads the CLI.
//
// Security: Claude Code treats a hook that exits 1 or crashes as "allow". If the guard
// bundle cannot even be loaded (missing build, broken install) we must still deny, so the
// import failure is turned into exit 2 with the reason on stderr.
if (process.argv[2] === "guard") {
  try {
    // The same CommonJS bundle that bin/forge-guard.cjs (the effective hook command) loads.
    const { createRequire } = await import("node:module");
    createRequire(import.meta.url)("../dist/guard.cjs").startGuard(process.argv.slice(3));
  } catch (error) {
    process.stderr.write(`forge guard could not start, denying: ${String(error)}\n`);
    process.exit(2);
  }
} else if (process.argv[2] === "stop-verify" && process.argv.length === 3) {
  // The builder's Stop hook: a failed load must still block (exit 0 with a block answer).
  try {
    await import("../dist/stop-verify.js");
  } catch (error) {
    const reason = `forge stop-verify could not start (${String(error)}); blocking.`;
    process.stdout.write(`${JSON.stringify({ decision: "block", reason })}\n`);
  }
} else if (process.argv[2] === "scan-secrets" && !process.argv.includes("--help")) {
  await import("../dist/scan-secrets.js");
} else {
  await import("../dist/cli.js");
}
