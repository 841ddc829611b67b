// Runs left `running` by a process that is gone: found from the journal's `run.driver` records
// (src/store/driver-identity.ts), named by `forge run` and `forge status`, continued by
// `forge resume`.
import type { JournalStore } from "../../chain/ports.js";
import type { RunRecord } from "../../chain/types.js";
import {
  type DriverIdentity,
  type DriverLiveness,
  driverFromData,
  driverLiveness,
} from "../../store/driver-identity.js";

export interface RunDriver {
  run: RunRecord;
  liveness: DriverLiveness;
  /** Nobody drives this unfinished run: `forge resume` may continue it. */
  orphaned: boolean;
}

export async function runDriver(store: JournalStore, run: RunRecord): Promise<RunDriver> {
  const record = await store.latestEvent(run.id, "run.driver");
  const liveness = driverLiveness(driverFromData(record?.data));
  // A queued run without a record may be about to be driven; a running one was driven by a
  // forgechain that recorded nobody, or by a process that is gone.
  const unfinished = run.state === "running" || run.state === "queued";
  const orphaned =
    unfinished &&
    (liveness.state === "gone" || (liveness.driver === null && run.state === "running"));
  return { run, liveness, orphaned };
}

/** The unfinished runs in this journal that nobody drives any more. */
export async function orphanedRuns(store: JournalStore): Promise<RunDriver[]> {
  const runs = await store.listRuns({ states: ["queued", "running"] });
  const drivers = await Promise.all(runs.map((r) => runDriver(store, r)));
  return drivers.filter((d) => d.orphaned);
}

export function describeDriver(d: DriverIdentity): string {
  return `${d.command} (pid ${d.pid} on ${d.host}${d.since ? `, since ${d.since}` : ""})`;
}

/** One paragraph: which run, who left it, why we know, and the two commands that help. */
export function orphanNotice(d: RunDriver): string {
  const { run, liveness } = d;
  const who = liveness.driver ? `by ${describeDriver(liveness.driver)}` : "";
  const why = liveness.state === "alive" ? "" : `: ${liveness.why}`;
  return (
    `run ${run.id} ("${run.task.title.slice(0, 60)}") was left ${run.state} ${who}${why}. ` +
    `\`forge resume ${run.id}\` continues it from the journal; \`forge cancel ${run.id}\` ends it.`
  ).replace(/ {2,}/g, " ");
}
