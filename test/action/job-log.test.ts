import { describe, expect, it } from "vitest";
import { jobLogger, stepGroups } from "../../src/action/job-log.js";

const ev = (type: string, data: Record<string, unknown>) => ({
  seq: 1,
  runId: "r",
  type,
  data,
  at: "2026-01-01T00:00:00Z",
});

describe("the job's log", () => {
  it("one group per step, closed with its verdict; a group left open is closed before the next", () => {
    const lines: string[] = [];
    const g = stepGroups((t) => lines.push(t));
    g.events?.("r", [
      ev("step.started", { role: "architect", attempt: 1 }),
      ev("step.finished", { role: "architect", verdict: "PASS" }),
      ev("step.started", { role: "builder", attempt: 1 }),
    ]);
    g.events?.("r", [ev("step.started", { role: "builder", attempt: 2 })]);
    g.events?.("r", [ev("step.blocked", { role: "builder", requestId: "q1" })]);
    g.close();
    expect(lines.join("")).toBe(
      [
        "::group::forgechain: architect (attempt 1)",
        "forgechain: architect: PASS",
        "::endgroup::",
        "::group::forgechain: builder (attempt 1)",
        "::endgroup::",
        "::group::forgechain: builder (attempt 2)",
        "forgechain: builder: waiting for an answer to q1",
        "::endgroup::",
        "",
      ].join("\n"),
    );
  });

  it("a reason over several lines stays one line: it cannot start a workflow command", () => {
    const lines: string[] = [];
    const g = stepGroups((t) => lines.push(t));
    g.events?.("r", [
      ev("step.started", { role: "builder", attempt: 1 }),
      ev("step.interrupted", { role: "builder", reason: "timed out\n::error::forged\r\nx" }),
    ]);
    const text = lines.join("");
    expect(text).toContain("forgechain: builder: interrupted: timed out ::error::forged x\n");
    expect(text.split("\n").filter((l) => l.startsWith("::error"))).toEqual([]);
  });

  it("errors and warnings become workflow commands; info is a plain line; debug is not shown", () => {
    const lines: string[] = [];
    const log = jobLogger((t) => lines.push(t));
    log.error({ x: 1 }, "it broke");
    log.warn({}, "careful");
    log.info({}, "step done");
    log.debug({}, "noise");
    expect(lines).toEqual([
      "::error::forgechain: it broke\n",
      "::warning::forgechain: careful\n",
      "forgechain: step done\n",
    ]);
  });
});
