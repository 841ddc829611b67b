/**
 * Cost and tokens of a run as the journal holds them, per step (every attempt counts: each was
 * paid for) and in total, for the sticky comment and `/forge status`. The runner journals each
 * step's transcript (`runner.step.transcript`); its reader (src/runner/step-usage.ts) takes the
 * numbers from the claude result line, or from fields the runner put beside the stream.
 */
import type { RunEvent } from "../chain/types.js";
import { addUsage, type StepUsage, usageOfTranscript } from "../runner/index.js";

export interface StepTotal extends StepUsage {
  /** Attempts that reported usage. */
  attempts: number;
}

export interface RunUsage {
  /** By step index; steps that reported nothing are absent. */
  steps: Map<number, StepTotal>;
  /** Null when no step reported anything. */
  total: StepUsage | null;
}

const TRANSCRIPT = "runner.step.transcript";

export function runUsage(events: readonly RunEvent[]): RunUsage {
  const steps = new Map<number, StepTotal>();
  let total: StepUsage | null = null;
  for (const e of events) {
    if (e.type !== TRANSCRIPT || typeof e.data.index !== "number") continue;
    const usage = usageOfTranscript(e.data);
    if (!usage) continue;
    const before = steps.get(e.data.index);
    steps.set(e.data.index, {
      ...addUsage(before ?? null, usage),
      attempts: (before?.attempts ?? 0) + 1,
    });
    total = addUsage(total, usage);
  }
  return { steps, total };
}
