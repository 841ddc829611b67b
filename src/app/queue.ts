/**
 * The in-process work queue (R1.5, R10.1): webhook handlers push a job and return at once;
 * jobs run in the background, a few at a time, so a burst of deliveries neither delays the
 * 2xx answers nor starves the chains already running on the two cores. A job that has not
 * started when the process dies is lost — its delivery is in the journal, so GitHub's
 * "redeliver" does nothing; a started chain is journaled and recovered on restart.
 */
import type { Logger } from "../chain/ports.js";

export interface JobQueue {
  push(name: string, job: () => Promise<void>): void;
  /** Resolves when every job pushed so far (and every job they pushed) has finished. */
  drain(): Promise<void>;
  readonly pending: number;
}

export function createJobQueue(options: { concurrency: number; logger: Logger }): JobQueue {
  const waiting: Array<{ name: string; job: () => Promise<void> }> = [];
  let running = 0;
  let idle: Array<() => void> = [];

  const settle = () => {
    if (running === 0 && waiting.length === 0) {
      const done = idle;
      idle = [];
      for (const resolve of done) resolve();
    }
  };

  const next = () => {
    while (running < options.concurrency && waiting.length > 0) {
      const item = waiting.shift();
      if (!item) break;
      running++;
      // Started on a later tick: the handler that pushed has answered by then.
      setImmediate(() => {
        item
          .job()
          .catch((err: unknown) => {
            options.logger.error(
              { job: item.name, err: err instanceof Error ? err.message : String(err) },
              "background job failed",
            );
          })
          .finally(() => {
            running--;
            next();
            settle();
          });
      });
    }
  };

  return {
    push(name, job) {
      waiting.push({ name, job });
      next();
    },
    drain() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
    get pending() {
      return running + waiting.length;
    },
  };
}
