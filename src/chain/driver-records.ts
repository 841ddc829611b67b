// Which process drives a run, as the journal records it: a `run.driver` event each time a
// process starts driving an unfinished run (the identity is the adapter's: pid, host, start
// time — src/store/driver-identity.ts; the domain keeps it as opaque data). `forge status`
// reads it to name a run whose process is gone; `recover` to leave alone a run another live
// process drives.
import type { ChainEngineDeps } from "./engine.js";
import { StaleStateError } from "./errors.js";
import type { Transition } from "./ports.js";
import type { RunEvent, RunRecord } from "./types.js";

export const DRIVER_EVENT = "run.driver";

export function driverRecords(
  deps: Pick<ChainEngineDeps, "store" | "clock" | "driver" | "driverAlive">,
  transition: (runId: string, change: Transition) => Promise<RunEvent[]>,
) {
  /** Journal that this process drives the run now (before it waits for a slot). */
  async function claim(run: RunRecord): Promise<void> {
    if (!deps.driver || (run.state !== "queued" && run.state !== "running")) return;
    try {
      await transition(run.id, {
        events: [
          { type: DRIVER_EVENT, data: { ...deps.driver, since: deps.clock.now().toISOString() } },
        ],
        expect: { runStates: ["queued", "running"] },
      });
    } catch (err) {
      // Cancelled or finished meanwhile: the drive itself will find that out.
      if (!(err instanceof StaleStateError)) throw err;
    }
  }

  /** Another process that still lives drives this run (its last record names it). */
  async function drivenElsewhere(runId: string): Promise<boolean> {
    if (!deps.driverAlive) return false;
    // The newest record only: replicas ask this of every unfinished run every few seconds.
    const last = await deps.store.latestEvent(runId, DRIVER_EVENT);
    if (!last) return false;
    const me = deps.driver;
    if (me && last.data.pid === me.pid && last.data.host === me.host) return false;
    return deps.driverAlive(last.data);
  }

  return { claim, drivenElsewhere };
}
