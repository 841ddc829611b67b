// secretlint's profiler (@secretlint/profiler 12) is a process-wide singleton that every scan
// calls: about 100 `performance.mark`s per scan, each kept in Node's global user-timing buffer
// and in the profiler's own array, which its PerformanceObserver searches linearly on every
// mark. Nothing ever clears either. Measured: the 100th scan of a 2 KB text costs 4× the
// first, and in one bench chain the observer took 0.4 s of the runner's CPU. In the App, which
// scans every transcript, comment and run output for as long as it runs, that is a leak that
// also slows every scan. We never read the profile, so its marks become no-ops here, before
// the first scan. `@secretlint/core` must resolve to this same copy (package.json pins both).
import { secretLintProfiler } from "@secretlint/profiler";

const profiler = secretLintProfiler as unknown as { mark?: unknown };
if (typeof profiler.mark !== "function") {
  // A future secretlint changed the profiler's shape: fail loudly rather than leak quietly.
  throw new Error("@secretlint/profiler has no mark(): review src/secrets/quiet-profiler.ts");
}
profiler.mark = () => {};

/** Marks the profiler has kept (0 while it is silenced); for tests. */
export function profilerEntryCount(): number {
  const entries = (secretLintProfiler as unknown as { entries?: unknown[] }).entries;
  return Array.isArray(entries) ? entries.length : 0;
}
