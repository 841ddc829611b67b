// How an agent process ended, as the runner's FAIL reasons (src/runner/step-outcome.ts).
import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { enforceRoleGate } from "../../src/policy/role-gate.js";
import type { AgentProcessResult } from "../../src/runner/agent-process.js";
import { processReasons, roleGateOutcome } from "../../src/runner/step-outcome.js";
import { tempDir } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";

const ended = (p: Partial<AgentProcessResult> = {}): AgentProcessResult => ({
  exitCode: 0,
  signal: null,
  stdout: "",
  stderr: "",
  timedOut: false,
  turnLimitHit: false,
  cancelled: false,
  turns: 1,
  ...p,
});
const opts = { timeoutMs: 90_000, maxTurns: 12, gate: undefined };

describe("processReasons", () => {
  it("a clean exit gives none", async () => {
    expect(await processReasons(ended(), opts)).toEqual([]);
  });

  it.each([
    [{ spawnError: "ENOENT bwrap", exitCode: null }, "the agent could not start: ENOENT bwrap"],
    [{ timedOut: true, exitCode: null }, "the agent timed out after 90 s"],
    [{ turnLimitHit: true, exitCode: null }, "the agent went past its 12 turns"],
    [{ cancelled: true, exitCode: null }, "the step was cancelled"],
  ])("%o: one reason, not also the exit code", async (p, reason) => {
    expect(await processReasons(ended(p), opts)).toEqual([reason]);
  });

  it("a role-gate violation is a reason of its own", async () => {
    const r = await processReasons(ended({ exitCode: 1 }), {
      ...opts,
      gate: "ROLE_GATE_VIOLATION: x",
    });
    expect(r).toEqual(["ROLE_GATE_VIOLATION: x"]);
  });

  it("a non-zero exit names the code and the tail of stderr, with secrets redacted", async () => {
    const token = fake.githubToken();
    const r = await processReasons(ended({ exitCode: 3, stderr: `boom ${token}\n` }), opts);
    expect(r).toHaveLength(1);
    expect(r[0]).toMatch(/^the agent exited with 3: boom /);
    expect(r[0]).not.toContain(token);
    expect(await processReasons(ended({ exitCode: null, signal: "SIGKILL" }), opts)).toEqual([
      "the agent exited with SIGKILL",
    ]);
  });
});

describe("roleGateOutcome reads the ledger in the agent's HOME as the agent left it", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  function home(): { ledger: string; keep: string } {
    const t = tempDir("forge-ledger-");
    cleanups.push(t.cleanup);
    return { ledger: join(t.dir, "ledger.jsonl"), keep: join(t.dir, "kept.jsonl") };
  }

  it("no ledger, no refusal: no violation", async () => {
    const h = home();
    expect(await roleGateOutcome(h.ledger, h.keep, undefined)).toBeNull();
  });

  it("a link there is not followed: a violation, and the file it names is not read", async () => {
    const h = home();
    const outside = tempDir("forge-ledger-outside-");
    cleanups.push(outside.cleanup);
    writeFileSync(join(outside.dir, "private"), "not the runner's to read\n");
    symlinkSync(join(outside.dir, "private"), h.ledger);
    const out = await roleGateOutcome(h.ledger, h.keep, undefined);
    expect(out?.detail).toBe(
      "ROLE_GATE_VIOLATION: the role-gate ledger was not read: it is a link",
    );
    expect(existsSync(h.keep)).toBe(false);
  });

  it("a FIFO there does not hang the runner", async () => {
    const h = home();
    execFileSync("mkfifo", [h.ledger]);
    const out = await roleGateOutcome(h.ledger, h.keep, undefined);
    expect(out?.detail).toContain("it is not a regular file");
  }, 10_000);

  it("a file that is not a ledger is a violation", async () => {
    const h = home();
    writeFileSync(h.ledger, "not a ledger line\n");
    const out = await roleGateOutcome(h.ledger, h.keep, undefined);
    expect(out?.detail).toContain("no longer verifies");
  });

  it("a refusal the stream never carried is told in the ledger's own words", async () => {
    const h = home();
    enforceRoleGate({
      profile: { role: "builder", disallowed_tools: ["Bash(make:*)"] },
      tool: "Bash",
      input: { command: "make test" },
      ledgerFile: h.ledger,
    });
    const out = await roleGateOutcome(h.ledger, h.keep, undefined);
    expect(out).toEqual({
      detail: "ROLE_GATE_VIOLATION: the builder profile denies Bash(make:*)",
      ledgerLines: 1,
    });
  });
});
