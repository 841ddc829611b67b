/**
 * `disableBypassPermissionsMode: "disable"` (R2.2): a bypass flag slipped onto the command line
 * (a wrapper, a stacked argv) must not lift the role's rules. Measured on 2.1.332: with the
 * setting the CLI ignores the flag and stays in dontAsk; without it the CLI (as root) refuses to
 * start, and as any other user it would run everything unasked.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROLES } from "../../src/roles/role-names.js";
import { runClaude } from "../harness/claude-run.js";
import { variantSettings } from "../harness/layers.js";
import { createTempRepo, type TempRepo } from "../harness/temp-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(): TempRepo {
  const r = createTempRepo();
  cleanups.push(() => r.cleanup());
  return r;
}

// Every role with the flag that overrides our own --permission-mode (the last one wins), and
// the other bypass flag once: the setting is the same field in every file (unit-tested).
const CASES = [
  ...ROLES.map((role) => [role, ["--permission-mode", "bypassPermissions"]] as const),
  ["builder", ["--dangerously-skip-permissions"]] as const,
];

describe("bypass flags do not lift the settings", () => {
  it.each(CASES)("%s %j", async (role, flag) => {
    const r = repo();
    const run = await runClaude({
      cwd: r.dir,
      env: { FORGE_BASE_REF: r.base },
      // Settings alone (no guard hook): the permission rules are what is under test.
      settings: variantSettings(role, "settings-only"),
      extraArgs: [...flag],
      script: { turns: [{ tools: [{ name: "Bash", input: { command: "touch pwned.txt" } }] }] },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.toolResults).toHaveLength(1);
    expect(run.toolResults[0]?.isError).toBe(true);
    expect(run.toolResults[0]?.content).toMatch(/don't ask mode/);
    expect(existsSync(join(r.dir, "pwned.txt"))).toBe(false);
  });
});
