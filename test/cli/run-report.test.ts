// What `forge status` and the end of `forge run` print for one run, from journal events alone.
import { describe, expect, it } from "vitest";
import type { RunEvent, RunRecord, StepRecord } from "../../src/chain/types.js";
import { finalReport, networkLines, phaseLines } from "../../src/cli/local/run-report.js";

const run: RunRecord = {
  id: "0123456789abcdef0123456789abcdef",
  chain: "change",
  state: "failed",
  task: { title: "t", body: "b" },
  repo: { remote: "/r", baseRef: "main" },
  baseSha: null,
  branch: null,
  snapshot: { digest: "d", content: {} },
  requestBudget: 1,
  createdAt: "",
  updatedAt: "",
};
const step = (index: number, role: StepRecord["role"], patch: Partial<StepRecord> = {}) =>
  ({
    runId: run.id,
    index,
    role,
    state: "queued",
    attempt: 0,
    decision: null,
    output: null,
    startedAt: null,
    finishedAt: null,
    ...patch,
  }) as StepRecord;
let seq = 0;
const ev = (type: string, data: Record<string, unknown>): RunEvent => ({
  seq: ++seq,
  runId: run.id,
  type,
  data,
  at: "",
});

describe("phaseLines", () => {
  it("a failed setup phase: its reason and the failing command's output tail", async () => {
    const lines = await phaseLines({
      run,
      steps: [step(0, "architect")],
      pending: [],
      events: [
        ev("run.setup.started", {}),
        ev("setup.finished", {
          ok: false,
          failed: "npm ci",
          output: `${Array.from({ length: 40 }, (_, i) => `npm line ${i}`).join("\n")}\nnpm ERR! EROFS`,
        }),
        ev("run.setup.finished", {
          ok: false,
          reasons: ["setup command failed: npm ci", "…"],
          seconds: 3.2,
        }),
      ],
    });
    expect(lines[0]).toBe("  setup      FAIL 3.2 s");
    expect(lines[1]).toBe("             - setup command failed: npm ci");
    expect(lines[2]).toBe("             setup: npm ci:");
    expect(lines).toContain("               | npm ERR! EROFS");
    expect(lines).not.toContain("               | npm line 0"); // a tail, not the whole log
    expect(lines.at(-1)).toBe("  architect  queued");
  });

  it("a failed step: reasons, the output of its last attempt only, cost over all attempts", async () => {
    const result = (cost: number) =>
      JSON.stringify({
        type: "result",
        total_cost_usd: cost,
        usage: { input_tokens: 100, output_tokens: 50 },
      });
    const builder = step(1, "builder", {
      state: "failed",
      attempt: 2,
      decision: {
        role: "builder",
        verdict: "FAIL",
        reasons: ["scripts/verify.sh (from base abc) failed after the builder stopped"],
        overridden: true,
      },
    });
    const lines = await phaseLines({
      run,
      steps: [step(0, "architect", { state: "passed", attempt: 1 }), builder],
      pending: [],
      events: [
        ev("runner.step.transcript", {
          index: 1,
          role: "builder",
          attempt: 1,
          stream: result(0.1),
        }),
        ev("verify.finished", {
          index: 1,
          attempt: 1,
          ok: false,
          exitCode: 1,
          output: "OLD ATTEMPT",
        }),
        ev("runner.step.transcript", {
          index: 1,
          role: "builder",
          attempt: 2,
          stream: result(0.2),
        }),
        ev("verify.finished", {
          index: 1,
          attempt: 2,
          ok: false,
          exitCode: 2,
          output: "expected '!'",
        }),
      ],
    });
    expect(lines).toEqual([
      "  architect  passed",
      "  builder    FAIL (engine override) (attempt 2)  $0.3000 · 200 in, 100 out",
      "             - scripts/verify.sh (from base abc) failed after the builder stopped",
      "             scripts/verify.sh (exit 2):",
      "               | expected '!'",
      "             transcript: forge logs 0123456789ab builder",
      "  total      $0.3000 · 200 in, 100 out",
    ]);
  });
});

describe("the network a run's boxes had", () => {
  const denied = (data: Record<string, unknown>) => ev("egress.denied", data);
  const builder = step(1, "builder", { state: "passed", attempt: 1 });

  it("the egress proxy: a network line, and under each phase the hosts it was refused", async () => {
    const events = [
      ev("egress.mode", { mode: "proxy" }),
      ev("run.setup.started", {}),
      denied({ phase: "setup", host: "evil.example", port: 443, reason: "not on the allowlist" }),
      denied({ phase: "setup", host: "evil.example", port: 443, reason: "not on the allowlist" }),
      ev("run.setup.finished", { ok: true, seconds: 2 }),
      // The engine stamps a step's events with its index, role and attempt.
      denied({
        phase: "controls",
        host: "127.0.0.1",
        port: 9,
        reason: "loopback address",
        index: 1,
        role: "builder",
        attempt: 1,
      }),
      denied({
        phase: "agent",
        host: "x.example",
        port: 80,
        reason: "not on the allowlist",
        index: 1,
      }),
    ];
    expect(networkLines(events)).toEqual([
      "  network    egress proxy: each box reached only what its phase allows; 4 connections refused",
    ]);
    const lines = await phaseLines({
      run,
      steps: [step(0, "architect", { state: "passed", attempt: 1 }), builder],
      pending: [],
      events,
    });
    expect(lines).toEqual([
      "  setup      ok 2 s",
      "             refused evil.example:443 in setup: not on the allowlist (2 times)",
      "  architect  passed",
      "  builder    passed",
      "             refused 127.0.0.1:9 in controls: loopback address",
      "             refused x.example:80 in agent: not on the allowlist",
    ]);
    const report = await finalReport({ run, steps: [builder], pending: [], events });
    expect(report).toContain("  network    egress proxy:");
  });

  it("the host network: said plainly; no mode journaled: nothing said", async () => {
    expect(networkLines([ev("egress.mode", { mode: "host" })])).toEqual([
      "  network    the boxes shared the host network (FORGE_EGRESS=host): nothing limited what they could reach",
    ]);
    expect(networkLines([ev("egress.mode", { mode: "proxy" })])).toEqual([
      "  network    egress proxy: each box reached only what its phase allows; nothing was refused",
    ]);
    expect(networkLines([])).toEqual([]);
  });

  it("a host name from a box cannot write to the terminal", async () => {
    const lines = await phaseLines({
      run,
      steps: [builder],
      pending: [],
      events: [
        denied({
          phase: "verify",
          host: "a\u001b]0;pwned\u0007",
          port: 443,
          reason: "x",
          index: 1,
        }),
      ],
    });
    expect(lines[1]).toBe("             refused a?]0;pwned?:443 in verify: x");
  });

  it("names the first five hosts of a step and counts the rest", async () => {
    const events = Array.from({ length: 7 }, (_, i) =>
      denied({
        phase: "agent",
        host: `h${i}.example`,
        port: 443,
        reason: "not on the allowlist",
        index: 1,
      }),
    );
    const lines = await phaseLines({ run, steps: [builder], pending: [], events });
    expect(lines).toHaveLength(1 + 5 + 1);
    expect(lines.at(-1)).toBe("             … and 2 more refused host(s)");
  });
});
