/**
 * A call the role profile denies ends the agent inside Claude Code itself — through the REAL
 * CLI, the real settings and `forge guard` — not only when the runner notices the refusal in
 * the stream and kills it (that came after the model had the refusal when the machine was
 * busy). The model gets no further request: no refusal, no second turn.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { installRoot } from "../../src/install-root.js";
import { verifyLedger } from "../../src/policy/index.js";
import { effectiveSettings, SEARCH_TOOLS_ARGS } from "../../src/roles/settings.js";
import { ensureBuilt } from "../harness/build.js";
import { runClaude } from "../harness/claude-run.js";
import { createRoleRepo } from "../harness/role-fixture.js";

const ROOT = installRoot();
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => ensureBuilt());

/** The builder's profile with `make` denied, and an empty ledger beside it. */
function gateFiles(): { profile: string; ledger: string } {
  const dir = mkdtempSync(join(tmpdir(), "forge-gate-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, "profiles", "builder.json"), join(dir, "builder.json"));
  const file = join(dir, "builder.json");
  const profile = JSON.parse(readFileSync(file, "utf8")) as { disallowed_tools: string[] };
  profile.disallowed_tools.push("Bash(make:*)");
  writeFileSync(file, JSON.stringify(profile));
  return { profile: file, ledger: join(dir, "ledger.jsonl") };
}

describe("the role gate stops the agent at the violation", () => {
  it("the denied call is ledgered, and the model never hears back", async () => {
    const repo = createRoleRepo("builder", {
      files: { Makefile: ".PHONY: test\ntest:\n\t@echo make-tests-ok\n" },
    });
    cleanups.push(() => repo.cleanupAll());
    const gate = gateFiles();
    const run = await runClaude({
      cwd: repo.dir,
      settings: effectiveSettings("builder"),
      extraArgs: SEARCH_TOOLS_ARGS,
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        FORGE_BASE_REF: repo.base,
        FORGE_ROLE_PROFILE: gate.profile,
        FORGE_ROLE_LEDGER: gate.ledger,
      },
      script: {
        turns: [
          { tools: [{ name: "Bash", input: { command: "make test" } }] },
          { tools: [{ name: "Bash", input: { command: "git status" } }] },
        ],
        finalText: "done",
      },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json?.permission_denials.map((d) => d.tool_input)).toEqual([
      { command: "make test" },
    ]);
    // Without the guard's stop the CLI sends the refusal back and the model takes turn two.
    expect(run.toolResults).toEqual([]);
    expect(run.requests.filter((r) => r.kind === "main")).toHaveLength(1);
    const check = verifyLedger(gate.ledger);
    expect(check).toMatchObject({ ok: true, lines: 1 });
    expect(readFileSync(gate.ledger, "utf8")).toMatch(/"pattern":"Bash\(make:\*\)"/);
  }, 60_000);
});
