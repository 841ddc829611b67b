// The journal's network facts read back: the mode, and each refusal with its phase and step.
import { describe, expect, it } from "vitest";
import { egressSummary, groupDenials } from "../../src/policy/egress-events.js";

const denied = (data: Record<string, unknown>) => ({ type: "egress.denied", data });

describe("egressSummary", () => {
  it("reads the newest mode and every refusal, stamped with its step", () => {
    const s = egressSummary([
      { type: "egress.mode", data: { mode: "proxy" } },
      denied({ phase: "setup", host: "evil.example", port: 443, reason: "not allowed" }),
      denied({
        phase: "controls",
        role: "builder",
        index: 1,
        attempt: 1,
        host: "127.0.0.1",
        port: 9,
        reason: "loopback address",
      }),
      { type: "step.started", data: { index: 1 } },
    ]);
    expect(s.mode).toEqual({ mode: "proxy" });
    expect(s.denied).toEqual([
      { phase: "setup", host: "evil.example", port: 443, reason: "not allowed" },
      {
        phase: "controls",
        role: "builder",
        index: 1,
        host: "127.0.0.1",
        port: 9,
        reason: "loopback address",
      },
    ]);
    expect(egressSummary([]).mode).toBeNull();
    expect(
      egressSummary([{ type: "egress.mode", data: { mode: "host", reason: "r" } }]).mode,
    ).toEqual({ mode: "host", reason: "r" });
  });

  it("a host from the box cannot carry a terminal escape or a second line", () => {
    const s = egressSummary([
      denied({ phase: "agent", host: "a\u001b[2J\nb\u202e.example", port: "x", reason: 5 }),
    ]);
    expect(s.denied[0]).toEqual({ phase: "agent", host: "a?[2J?b?.example", port: 0, reason: "5" });
  });

  it("groupDenials counts one host:port per phase and step", () => {
    const s = egressSummary([
      denied({ phase: "setup", host: "evil.example", port: 443, reason: "not allowed" }),
      denied({ phase: "setup", host: "evil.example", port: 443, reason: "not allowed" }),
      denied({ phase: "setup", host: "::1", port: 80, reason: "loopback address" }),
      denied({ phase: "verify", index: 1, host: "evil.example", port: 443, reason: "not allowed" }),
    ]);
    expect(groupDenials(s.denied)).toEqual([
      { target: "evil.example:443", phase: "setup", reasons: ["not allowed"], count: 2 },
      { target: "[::1]:80", phase: "setup", reasons: ["loopback address"], count: 1 },
      { target: "evil.example:443", phase: "verify", index: 1, reasons: ["not allowed"], count: 1 },
    ]);
  });
});
