// R10.2: a run is driven by one process at a time, across processes and hosts sharing a journal.
// The driver takes the run's lease before it drives and renews it while it does; a process that
// dies stops renewing, and once the lease expired another takes the run over (recover()),
// re-attempting the step that was running. A driver that finds its lease taken stops driving;
// one that finds its run cancelled (by another process) stops its step.
import type { Clock, JournalStore, Logger } from "./ports.js";

export interface LeaseOptions {
  /** Who holds it: unique per process (host, pid, a random part). */
  owner: string;
  /** How long a lease lasts unless renewed; renewed every third of it. */
  ttlMs: number;
}

export function runLeases(deps: {
  store: JournalStore;
  clock: Clock;
  logger: Logger;
  lease?: LeaseOptions;
}) {
  const { store, clock, logger, lease } = deps;

  /** Takes or renews the lease; always true without leases (one process owns the journal). */
  async function take(runId: string): Promise<boolean> {
    if (!lease) return true;
    const now = clock.now();
    return store.leaseRun(
      runId,
      lease.owner,
      now.toISOString(),
      new Date(now.getTime() + lease.ttlMs).toISOString(),
    );
  }

  /**
   * Runs `work` holding the run's lease, renewing it; null when another holds it. If the lease
   * is lost meanwhile (this process stalled past its expiry and another took the run over),
   * `work`'s signal aborts: two drivers must never run a step each.
   */
  async function hold<T>(
    runId: string,
    signal: AbortSignal | undefined,
    work: (signal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T | null> {
    if (!lease) return work(signal);
    if (!(await take(runId))) return null;
    const lost = new AbortController();
    const cancelled = new AbortController();
    const renew = setInterval(
      () => {
        take(runId)
          .then(async (held) => {
            if (!held) return lost.abort(new Error(`the lease on run ${runId} was taken over`));
            // A cancel another replica journaled: this process's step stops now, not when it
            // ends on its own (cancel() aborts the step only where the run is driven).
            if ((await store.getRun(runId))?.state === "cancelled") {
              cancelled.abort(new Error(`run ${runId} was cancelled`));
            }
          })
          .catch((err: unknown) => {
            // A failed renewal is retried at the next tick; the lease lasts three of them.
            logger.warn({ runId, err: String(err) }, "renewing the run's lease failed");
          });
      },
      Math.max(50, Math.floor(lease.ttlMs / 3)),
    );
    renew.unref?.();
    try {
      const stops = [lost.signal, cancelled.signal, ...(signal ? [signal] : [])];
      return await work(AbortSignal.any(stops));
    } finally {
      clearInterval(renew);
      if (!lost.signal.aborted) await store.releaseRun(runId, lease.owner).catch(() => {});
    }
  }

  return { take, hold };
}
