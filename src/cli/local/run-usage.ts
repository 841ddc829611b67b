// Cost and tokens of a run's steps, from the transcripts the journal holds (step-usage.ts).
import type { RunEvent } from "../../chain/types.js";
import {
  addUsage,
  type StepUsage,
  type UsageSource,
  usageOfTranscript,
} from "../../runner/step-usage.js";

export interface RunUsage {
  /** Per step index: its attempts added up. */
  steps: Map<number, { usage: StepUsage; attempts: number }>;
  total: StepUsage | null;
  sources: UsageSource[];
}

export const TRANSCRIPT_EVENT = "runner.step.transcript";

export function runUsage(events: readonly RunEvent[]): RunUsage {
  const steps: RunUsage["steps"] = new Map();
  const sources: UsageSource[] = [];
  let total: StepUsage | null = null;
  for (const e of events) {
    if (e.type !== TRANSCRIPT_EVENT) continue;
    const usage = usageOfTranscript(e.data);
    const index = Number(e.data.index);
    if (!usage || !Number.isInteger(index)) continue;
    sources.push({ index, role: String(e.data.role), attempt: Number(e.data.attempt), usage });
    const seen = steps.get(index);
    steps.set(index, {
      usage: addUsage(seen?.usage ?? null, usage),
      attempts: (seen?.attempts ?? 0) + 1,
    });
    total = addUsage(total, usage);
  }
  return { steps, total, sources };
}
