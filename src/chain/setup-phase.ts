// The run's setup phase in the driving loop: once, before the first step, journaled as its own
// phase (`run.setup.started`, the runner's facts, `run.setup.finished`). A failed setup fails
// the run before any agent starts. After a restart it runs again only if no step has started.
import type { Clock, StepProgress, StepRunner, Transition } from "./ports.js";
import { errorText, pickRunPatch, runnerEvents } from "./step-events.js";
import type { RunEvent, RunRecord, StepRecord } from "./types.js";

export interface SetupPhaseDeps {
  runner: StepRunner;
  clock: Clock;
  transition(runId: string, change: Transition): Promise<RunEvent[]>;
  getRun(runId: string): Promise<RunRecord>;
  endRun(run: RunRecord, state: "failed", reasons: string[]): Promise<void>;
  progress(runId: string, progress: StepProgress): void;
}

/** No attempt yet: the run has not reached its first step. */
const notStarted = (s: StepRecord) => s.state === "queued" && s.attempt === 0;

export function createSetupPhase(d: SetupPhaseDeps) {
  /** Runs whose setup phase finished in this process (the journal says so for later ones). */
  const prepared = new Set<string>();

  return {
    needed(runId: string, steps: StepRecord[]): boolean {
      return d.runner.prepareRun !== undefined && !prepared.has(runId) && steps.every(notStarted);
    },

    async run(
      run: RunRecord,
      signal: AbortSignal | undefined,
      handle: { stepController: AbortController | null },
    ): Promise<void> {
      const prepareRun = d.runner.prepareRun?.bind(d.runner);
      if (!prepareRun) return;
      await d.transition(run.id, {
        events: [{ type: "run.setup.started", data: {} }],
        expect: { runStates: ["running"] },
      });
      const started = d.clock.now().getTime();
      const controller = new AbortController();
      handle.stepController = controller;
      const setupSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
      let result: Awaited<ReturnType<typeof prepareRun>>;
      try {
        result = await prepareRun({
          run,
          signal: setupSignal,
          progress: (p) => d.progress(run.id, p),
        });
      } catch (err) {
        result = { ok: false, reasons: [`the setup phase failed: ${errorText(err)}`], events: [] };
      } finally {
        handle.stepController = null;
      }
      const current = await d.getRun(run.id);
      // A cancel got there first, or the caller stopped driving: the next drive decides.
      if (current.state !== "running" || signal?.aborted) return;
      const seconds = Math.round((d.clock.now().getTime() - started) / 100) / 10;
      const runPatch = pickRunPatch(result.runPatch);
      await d.transition(run.id, {
        ...(Object.keys(runPatch).length > 0 ? { run: runPatch } : {}),
        events: [
          ...runnerEvents(result.events, {}),
          { type: "run.setup.finished", data: { ok: result.ok, reasons: result.reasons, seconds } },
        ],
        expect: { runStates: ["running"] },
      });
      if (!result.ok) {
        await d.endRun(await d.getRun(run.id), "failed", ["setup failed", ...result.reasons]);
        return;
      }
      prepared.add(run.id);
    },
  };
}
