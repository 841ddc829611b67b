import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "../../src/chain/errors.js";
import {
  assertRunTransition,
  assertStepTransition,
  canRunTransition,
  canStepTransition,
} from "../../src/chain/state-machine.js";
import type { RunState, StepState } from "../../src/chain/types.js";

const RUN: RunState[] = ["queued", "running", "paused", "passed", "failed", "cancelled"];
const STEP: StepState[] = ["queued", "running", "passed", "failed", "blocked"];

// The legal changes, written out once more by hand: the table in src must match exactly.
const LEGAL_RUN = new Set([
  "queued>running",
  "queued>cancelled",
  "running>paused",
  "running>passed",
  "running>failed",
  "running>cancelled",
  "paused>running",
  "paused>cancelled",
]);
const LEGAL_STEP = new Set([
  "queued>running",
  "queued>failed",
  "running>passed",
  "running>failed",
  "running>blocked",
  "running>queued",
  "blocked>running",
  "blocked>failed",
]);

describe("run state machine", () => {
  for (const from of RUN) {
    for (const to of RUN) {
      const legal = LEGAL_RUN.has(`${from}>${to}`);
      it(`${from} → ${to} is ${legal ? "legal" : "refused"}`, () => {
        expect(canRunTransition(from, to)).toBe(legal);
        if (legal) expect(() => assertRunTransition(from, to)).not.toThrow();
        else expect(() => assertRunTransition(from, to)).toThrow(IllegalTransitionError);
      });
    }
  }
  it("terminal states never change", () => {
    for (const from of ["passed", "failed", "cancelled"] as const) {
      for (const to of RUN) expect(canRunTransition(from, to)).toBe(false);
    }
  });
  it("a paused run cannot pass or fail without being resumed first", () => {
    expect(canRunTransition("paused", "passed")).toBe(false);
    expect(canRunTransition("paused", "failed")).toBe(false);
  });
});

describe("step state machine", () => {
  for (const from of STEP) {
    for (const to of STEP) {
      const legal = LEGAL_STEP.has(`${from}>${to}`);
      it(`${from} → ${to} is ${legal ? "legal" : "refused"}`, () => {
        expect(canStepTransition(from, to)).toBe(legal);
        if (legal) expect(() => assertStepTransition(from, to)).not.toThrow();
        else {
          const err = (() => {
            try {
              assertStepTransition(from, to);
            } catch (e) {
              return e;
            }
          })();
          expect(err).toBeInstanceOf(IllegalTransitionError);
          expect(err).toMatchObject({ code: "illegal_transition", entity: "step", from, to });
        }
      });
    }
  }
  it("a step can never pass without running (no queued → passed, no blocked → passed)", () => {
    expect(canStepTransition("queued", "passed")).toBe(false);
    expect(canStepTransition("blocked", "passed")).toBe(false);
  });
});
