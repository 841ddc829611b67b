/**
 * The builder's Stop hook (R2.6) through the REAL Claude Code CLI: with a failing
 * `scripts/verify.sh` in the base commit the CLI is blocked once — the model server sees a
 * follow-up request that carries our block reason — and then let go (`stop_hook_active`), so
 * the runner's own re-check decides. A passing verify.sh lets the first stop through.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { effectiveSettings, SEARCH_TOOLS_ARGS } from "../../src/roles/settings.js";
import { ensureBuilt } from "../harness/build.js";
import { runClaude } from "../harness/claude-run.js";
import type { RecordedRequest } from "../harness/model-server.js";
import { createRoleRepo, type RoleRepo } from "../harness/role-fixture.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => ensureBuilt());

function repoWithVerify(script: string): RoleRepo {
  const repo = createRoleRepo("builder", {
    files: { "scripts/verify.sh": script },
    modes: { "scripts/verify.sh": 0o755 },
  });
  cleanups.push(() => repo.cleanupAll());
  return repo;
}

/** All text the CLI sent in a request's messages (the block reason arrives as a message). */
function messageText(req: RecordedRequest): string {
  const body = req.body as { messages?: Array<{ content: unknown }> };
  return JSON.stringify(body.messages ?? []);
}

const script = { turns: [{ text: "I am done." }, { text: "Still done." }] };

describe("builder Stop hook with the real CLI", () => {
  it("blocks once when scripts/verify.sh from the base commit fails", async () => {
    const repo = repoWithVerify("#!/bin/sh\necho 'verify: 1 test failed (forge-e2e)'\nexit 3\n");
    const run = await runClaude({
      script,
      cwd: repo.dir,
      env: { FORGE_BASE_REF: repo.base },
      settings: effectiveSettings("builder"),
      extraArgs: SEARCH_TOOLS_ARGS,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const main = run.requests.filter((r) => r.kind === "main");
    // Turn 0 ended, the hook blocked, the CLI asked again (turn 1), then it was let go.
    expect(main.map((r) => r.turn)).toEqual([0, 1]);
    const followUp = messageText(main[1] as RecordedRequest);
    expect(followUp).toMatch(/Stop hook/i);
    expect(followUp).toContain("scripts/verify.sh");
    expect(followUp).toContain(repo.base);
    expect(followUp).toContain("failed with exit 3");
    expect(followUp).toContain("1 test failed (forge-e2e)");
    expect(messageText(main[0] as RecordedRequest)).not.toContain("forge-e2e");
    expect(run.json?.result).toBe("Still done.");
  });

  it("lets the first stop through when verify.sh passes", async () => {
    const repo = repoWithVerify("#!/bin/sh\necho verify-ok\nexit 0\n");
    const run = await runClaude({
      script,
      cwd: repo.dir,
      env: { FORGE_BASE_REF: repo.base },
      settings: effectiveSettings("builder"),
      extraArgs: SEARCH_TOOLS_ARGS,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.requests.filter((r) => r.kind === "main").map((r) => r.turn)).toEqual([0]);
    expect(run.json?.result).toBe("I am done.");
  });

  it("a builder that rewrites verify.sh cannot disarm the gate (the base copy runs)", async () => {
    const repo = repoWithVerify("#!/bin/sh\necho 'base verify says no (forge-e2e)'\nexit 1\n");
    // The working tree's copy (what a builder could edit) passes; only the base copy counts.
    writeFileSync(join(repo.dir, "scripts/verify.sh"), "#!/bin/sh\nexit 0\n");
    const run = await runClaude({
      script,
      cwd: repo.dir,
      env: { FORGE_BASE_REF: repo.base },
      settings: effectiveSettings("builder"),
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const main = run.requests.filter((r) => r.kind === "main");
    expect(main.map((r) => r.turn)).toEqual([0, 1]);
    expect(messageText(main[1] as RecordedRequest)).toContain("base verify says no (forge-e2e)");
  });

  it("the real-settings reviewer has no Stop hook: its first stop ends the run", async () => {
    const repo = repoWithVerify("#!/bin/sh\nexit 1\n");
    const run = await runClaude({
      script,
      cwd: repo.dir,
      env: { FORGE_BASE_REF: repo.base },
      settings: effectiveSettings("reviewer"),
    });
    expect(run.requests.filter((r) => r.kind === "main").map((r) => r.turn)).toEqual([0]);
  });
});
