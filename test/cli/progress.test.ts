// The live progress table, as the bytes a terminal receives: nothing before the header, the
// table redrawn in place below other output, rows that never wrap, honest labels, no word cut.
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/chain/types.js";
import { formatRow, progressView } from "../../src/cli/local/progress.js";

const ESC = "\x1b";
const roles = ["architect", "builder"] as const;

function terminal(columns = 60, isTTY = true) {
  const writes: string[] = [];
  return {
    out: { isTTY, columns, write: (s: string) => writes.push(s) },
    writes,
    text: () => writes.join(""),
  };
}

let seq = 0;
const ev = (type: string, data: Record<string, unknown>): RunEvent => ({
  seq: ++seq,
  runId: "r",
  type,
  data,
  at: "",
});
const clock = () => 1000;

describe("progress on a terminal", () => {
  it("draws nothing before the header; the header is printed above the table, which redraws in place", () => {
    const t = terminal();
    const view = progressView(t.out, roles, clock);
    expect(t.writes).toEqual([]);
    view.note("run abc (change chain, base main)");
    expect(t.writes).toEqual([`\r${ESC}[Jrun abc (change chain, base main)\n`]);
    view.events("r", [ev("step.started", { index: 0, role: "architect", attempt: 1 })]);
    const table = "  architect  running     0.0s\n  builder    queued\n";
    expect(t.writes[1]).toBe(`\r${ESC}[J${table}`);
    // The next change goes up exactly the two rows drawn, clears them and below, draws anew.
    view.events("r", [
      ev("step.finished", { index: 0, role: "architect", decision: { verdict: "PASS" } }),
    ]);
    expect(t.writes[2]).toBe(
      `${ESC}[2A\r${ESC}[J  architect  PASS        0.0s\n  builder    queued\n`,
    );
    // Other output goes above the table, which is drawn again below it.
    view.note("cancelling (Ctrl-C)…");
    expect(t.writes[3]).toBe(
      `${ESC}[2A\r${ESC}[Jcancelling (Ctrl-C)…\n  architect  PASS        0.0s\n  builder    queued\n`,
    );
    view.stop();
  });

  it("a setup phase adds its own row at the top; the redraw covers the longer table", () => {
    const t = terminal();
    const view = progressView(t.out, roles, clock);
    view.events("r", [ev("run.setup.started", {})]);
    expect(t.writes[0]).toBe(
      `\r${ESC}[J  setup      running     0.0s\n  architect  queued\n  builder    queued\n`,
    );
    view.events("r", [
      ev("run.setup.finished", { ok: false, reasons: ["setup command failed: npm ci"] }),
    ]);
    expect(t.writes[1]).toBe(
      `${ESC}[3A\r${ESC}[J  setup      FAIL        0.0s  setup command failed: npm ci\n  architect  queued\n  builder    queued\n`,
    );
    view.stop();
  });

  it("never draws a row wider than the terminal (a wrapped row left stale copies)", () => {
    const t = terminal(40);
    const view = progressView(t.out, roles, clock);
    view.events("r", [ev("step.started", { index: 1, role: "builder", attempt: 1 })]);
    view.progress("r", {
      role: "builder",
      refusal: "PreToolUse:Bash hook error: forge guard: .env is a secret path (rule: dotenv)",
    });
    const last = t.writes.at(-1) ?? "";
    const rows = last
      .replace(new RegExp(`${ESC}\\[\\d*[AJ]|\\r`, "g"), "")
      .split("\n")
      .filter(Boolean);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(39);
    expect(rows[1]).toBe("  builder    running     0.0s  refused…");
    view.stop();
  });
});

describe("labels and clipping", () => {
  it("a refusal is labelled refused and cut at a word boundary, never mid-word", () => {
    const row = {
      name: "builder",
      state: "running",
      startedAt: 0,
      endedAt: 0,
      last: "refused: Permission to use Bash has been denied because Claude Code is running in don't ask mode",
    };
    const line = formatRow(row, 80, 0);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toBe(
      "  builder    running     0.0s  refused: Permission to use Bash has been denied…",
    );
  });

  it("prints plain lines without a terminal: one per change, refusals included", () => {
    const t = terminal(80, false);
    const view = progressView(t.out, roles, clock);
    view.note("run abc");
    view.events("r", [ev("step.started", { index: 0, role: "architect", attempt: 2 })]);
    view.progress("r", { role: "architect", lastTool: "Bash: make test → exit 2" });
    view.progress("r", { role: "architect", refusal: "forge guard: .env is a secret path" });
    view.stop();
    expect(t.text()).toBe(
      "run abc\n" +
        "  architect  running     0.0s — attempt 2\n" +
        "  architect  running     0.0s  refused: forge guard: .env is a secret path\n",
    );
    expect(t.text()).not.toContain(ESC);
  });
});
