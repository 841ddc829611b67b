/**
 * Controls the runner executes itself instead of through `sh -c`. The floor's `security`
 * control is one: a credential scan of tracked files with the maintained scanner (secretlint,
 * src/secrets). It is a built-in rather than `npx …` (npx fetches and runs packages — not
 * allowed in a box, R2.2) or a path into the install (which a config file should not need to
 * know). The runner turns the name into an argv that runs inside the box, e.g.
 * `[process.execPath, "<install>/bin/forge.js", "scan-secrets"]` for a box proof, which scans
 * the working tree in the box without following a symlink out to the host. After the builder,
 * the runner scans the committed tree's git objects itself (src/runner/tree-scan.ts): nothing
 * there is followed, and no process of the builder's runs.
 */
export const BUILTIN_PREFIX = "forge:";

export const BUILTIN_CONTROLS = {
  "forge:secret-scan": {
    description: "scan the tracked files for committed credentials (secretlint, recommended rules)",
    /** The `forge` subcommand that implements it. */
    subcommand: ["scan-secrets"],
  },
} as const;

export type BuiltinControl = keyof typeof BUILTIN_CONTROLS;

export function isBuiltinRun(run: string): boolean {
  return run.startsWith(BUILTIN_PREFIX);
}

export function isKnownBuiltin(run: string): run is BuiltinControl {
  return Object.hasOwn(BUILTIN_CONTROLS, run);
}

/** What the runner executes for a control: a shell command, or an argv for a built-in. */
export type ControlInvocation =
  | { kind: "shell"; command: string }
  | { kind: "argv"; argv: string[]; builtin: BuiltinControl };

/**
 * `forge` = how to start forge inside the box, e.g. `[process.execPath, "<root>/bin/forge.js"]`
 * (the bwrap box binds / read-only, so both paths exist in it).
 */
export function controlInvocation(run: string, forge: readonly string[]): ControlInvocation {
  if (isKnownBuiltin(run)) {
    return { kind: "argv", argv: [...forge, ...BUILTIN_CONTROLS[run].subcommand], builtin: run };
  }
  if (isBuiltinRun(run)) {
    // The schema refuses unknown built-ins; a caller that skipped it must not get a shell.
    throw new Error(`unknown built-in control ${JSON.stringify(run)}`);
  }
  return { kind: "shell", command: run };
}
