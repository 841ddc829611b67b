// Where a step's time goes, journaled with the step (`step.timings`): the chain-overhead bench
// reads it, and an operator can see whether the box, git or the agent was slow.
export interface PhaseClock {
  /** Close the phase that ran since the previous mark (or the start) under `name`. */
  mark(name: string): void;
  phases(): Record<string, number>;
}

export function phaseClock(now: () => number = () => performance.now()): PhaseClock {
  let last = now();
  const phases: Record<string, number> = {};
  return {
    mark(name) {
      const t = now();
      phases[name] = (phases[name] ?? 0) + Math.round(t - last);
      last = t;
    },
    phases: () => ({ ...phases }),
  };
}
