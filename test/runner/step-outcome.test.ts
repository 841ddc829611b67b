// How an agent process ended, as the runner's FAIL reasons (src/runner/step-outcome.ts).
import { describe, expect, it } from "vitest";
import type { AgentProcessResult } from "../../src/runner/agent-process.js";
import { processReasons } from "../../src/runner/step-outcome.js";
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
