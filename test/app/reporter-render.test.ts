import { describe, expect, it } from "vitest";
import { evaluateGate } from "../../src/app/gate.js";
import { renderSticky, type StickyInput } from "../../src/app/reporter-render.js";
import { GATE_EVENT } from "../../src/app/reporter-verdicts.js";
import type { RunEvent, RunRecord, StepRecord } from "../../src/chain/types.js";
import type { Role } from "../../src/roles/role-names.js";

const HEAD = "b".repeat(40);

const run: RunRecord = {
  id: "run9",
  chain: "change",
  state: "passed",
  task: { title: "t", body: "" },
  repo: { remote: "x", baseRef: "main" },
  baseSha: "a".repeat(40),
  branch: "forge/9-t",
  snapshot: { digest: "d", content: {} },
  requestBudget: 1,
  createdAt: "",
  updatedAt: "",
};

const steps: StepRecord[] = (["architect", "builder", "reviewer", "security"] as Role[]).map(
  (role, index) => ({
    runId: run.id,
    index,
    role,
    state: "passed",
    attempt: 1,
    decision: { role, verdict: "PASS", reasons: [], overridden: false },
    output: null,
    startedAt: null,
    finishedAt: null,
  }),
);

/** The sticky comment after the reporter set the gate for a change touching `changed`. */
function stickyAfterGate(changed: string[]): string {
  const gate = evaluateGate({ run, steps, events: [], headSha: HEAD, changedFiles: changed });
  // What the reporter journals when it sets the gate (reporter.ts, setGate).
  const event: RunEvent = {
    seq: 1,
    runId: run.id,
    type: GATE_EVENT,
    data: {
      headSha: HEAD,
      conclusion: gate.conclusion,
      title: gate.title,
      awaitingApproval: gate.awaitingApproval,
      protectedFiles: gate.protectedFiles.slice(0, 50),
    },
    at: "",
  };
  const input: StickyInput = {
    run,
    steps,
    pending: [],
    events: [event],
    gate: {
      conclusion: gate.conclusion,
      title: gate.title,
      awaitingApproval: gate.awaitingApproval,
    },
    pull: { number: 3 },
  };
  return renderSticky(input);
}

describe("sticky comment: what verify ran", () => {
  it("names the changed files verify and the controls execute among the protected ones", () => {
    const body = stickyAfterGate(["src/greet.ts", "Makefile", "CODEOWNERS", "package.json"]);
    expect(body).toContain(
      "⚠️ Files that verify or the controls execute were changed: `Makefile`, `package.json`. " +
        "The base's verify script and the controls ran the builder's version of them, so their " +
        "passing is not independent evidence; a maintainer must approve with `/forge approve run9`.",
    );
    // CODEOWNERS is protected, but verify does not run it.
    expect(body).not.toMatch(/execute were changed:[^.]*CODEOWNERS/);
    expect(body).toContain("**forge/gate:** ❌ Gate closed: protected paths need an approval");
  });

  it("says nothing about verify when none of its inputs changed", () => {
    for (const changed of [["src/greet.ts"], ["CODEOWNERS"]]) {
      expect(stickyAfterGate(changed)).not.toContain("verify or the controls execute");
    }
  });
});

describe("sticky comment: the setup phase", () => {
  const ev = (seq: number, type: string, data: Record<string, unknown>): RunEvent => ({
    seq,
    runId: run.id,
    type,
    data,
    at: "",
  });
  const sticky = (events: RunEvent[], state: RunRecord["state"] = "passed") =>
    renderSticky({ run: { ...run, state }, steps, pending: [], events, gate: null, pull: null });

  it("is a row before the steps: running, then how it ended and what it left", () => {
    const started = ev(1, "run.setup.started", {});
    expect(sticky([started], "running")).toContain("| — | setup | 🔄 running | — |");
    const body = sticky([
      started,
      ev(2, "setup.finished", { ok: true, results: ["node_modules"], commands: ["npm ci"] }),
      ev(3, "run.setup.finished", { ok: true, reasons: [], seconds: 1.2 }),
    ]);
    expect(body).toContain(
      "| — | setup | ✅ passed | ok in 1.2 s: `node_modules` for every step |",
    );
    expect(body.indexOf("| setup |")).toBeLessThan(body.indexOf("| architect |"));
  });

  it("a failed setup shows as failed, with the run's reasons below", () => {
    const body = sticky(
      [
        ev(1, "run.setup.started", {}),
        ev(2, "run.setup.finished", {
          ok: false,
          reasons: ["setup command failed: npm ci"],
          seconds: 3,
        }),
        ev(3, "run.finished", {
          state: "failed",
          reasons: ["setup failed", "setup command failed: npm ci"],
        }),
      ],
      "failed",
    );
    expect(body).toContain("| — | setup | ❌ failed | FAIL in 3 s |");
    expect(body).toContain("setup command failed: npm ci");
  });

  it("no setup phase, no row", () => {
    expect(sticky([])).not.toContain("| setup |");
  });
});

describe("sticky comment: the network", () => {
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>): RunEvent => ({
    seq: ++seq,
    runId: run.id,
    type,
    data,
    at: "",
  });
  const sticky = (events: RunEvent[]) =>
    renderSticky({ run, steps, pending: [], events, gate: null, pull: null });

  it("the egress proxy: one line, the refused hosts in code spans", () => {
    const body = sticky([
      ev("egress.mode", { mode: "proxy" }),
      ev("egress.denied", { phase: "setup", host: "evil.example", port: 443, reason: "r" }),
      ev("egress.denied", { phase: "setup", host: "evil.example", port: 443, reason: "r" }),
      ev("egress.denied", {
        phase: "controls",
        host: "@octocat`x",
        port: 80,
        reason: "r",
        index: 1,
        role: "builder",
      }),
    ]);
    expect(body).toContain(
      "**Network:** each box reached only what its phase allows (egress proxy); 3 connections refused: `evil.example:443` (setup), ``@octocat`x:80`` (controls).",
    );
    // Only one line, and the mention from a box cannot leave its code span.
    expect(body.match(/\*\*Network:\*\*/g)).toHaveLength(1);
    expect(body).not.toMatch(/[^`]@octocat/);
  });

  it("nothing refused; the host network named plainly; no mode journaled: no line", () => {
    expect(sticky([ev("egress.mode", { mode: "proxy" })])).toContain(
      "**Network:** each box reached only what its phase allows (egress proxy); nothing was refused.",
    );
    expect(sticky([ev("egress.mode", { mode: "host" })])).toContain(
      "**Network:** ⚠️ the boxes shared the host network (`FORGE_EGRESS=host`): nothing limited what they could reach.",
    );
    expect(
      sticky([
        ev("egress.mode", { mode: "host", reason: "container boxes have no egress control yet" }),
      ]),
    ).toContain(
      "**Network:** ⚠️ the boxes shared the host network (container boxes have no egress control yet): nothing limited what they could reach.",
    );
    expect(sticky([])).not.toContain("**Network:**");
  });

  it("names five hosts and counts the rest", () => {
    const events = [ev("egress.mode", { mode: "proxy" })];
    for (let i = 0; i < 8; i++)
      events.push(ev("egress.denied", { phase: "agent", host: `h${i}.example`, port: 443 }));
    expect(sticky(events)).toMatch(
      /8 connections refused: .*`h4\.example:443` \(agent\) and 3 more\./,
    );
  });
});
