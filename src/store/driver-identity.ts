// Which process drives a run, and whether it still lives. The engine journals this identity
// (a `run.driver` event) each time a process starts driving a run, so that a run left
// `running` by a process that died — killed, a closed terminal, a reboot — can be told apart
// from one another process is still driving, and continued (`forge resume`) only in the first
// case: two processes driving one run would run its steps twice.
//
// A pid alone is not an identity: pids are reused. The process's start time (in clock ticks
// since boot, /proc/<pid>/stat) and the kernel's boot id make it one on a host.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export interface DriverIdentity {
  pid: number;
  host: string;
  /** /proc/sys/kernel/random/boot_id: another value means the host rebooted since. */
  bootId: string | null;
  /** Field 22 of /proc/<pid>/stat; null where /proc is not available. */
  startTicks: number | null;
  /** What drives the run, in words ("forge run", "forge serve", …). */
  command: string;
  /** When this process started driving (ISO). */
  since: string;
}

export type DriverLiveness =
  /** The process that drives the run still runs. */
  | { state: "alive"; driver: DriverIdentity }
  /** It is gone: the run is driven by nobody. */
  | { state: "gone"; driver: DriverIdentity; why: string }
  /** Another host, or facts missing: nobody here can tell. */
  | { state: "unknown"; driver: DriverIdentity | null; why: string };

export function currentDriver(command: string, pid = process.pid): DriverIdentity {
  return {
    pid,
    host: hostname(),
    bootId: bootId(),
    startTicks: startTicks(pid),
    command,
    since: new Date().toISOString(),
  };
}

/** Reads a driver identity back from a journaled event's data; null when it is not one. */
export function driverFromData(
  data: Record<string, unknown> | null | undefined,
): DriverIdentity | null {
  if (!data || typeof data.pid !== "number" || typeof data.host !== "string") return null;
  return {
    pid: data.pid,
    host: data.host,
    bootId: typeof data.bootId === "string" ? data.bootId : null,
    startTicks: typeof data.startTicks === "number" ? data.startTicks : null,
    command: typeof data.command === "string" ? data.command : "forge",
    since: typeof data.since === "string" ? data.since : "",
  };
}

export function driverLiveness(
  driver: DriverIdentity | null,
  probe: ProcessProbe = hostProbe,
): DriverLiveness {
  if (!driver)
    return { state: "unknown", driver: null, why: "no process is recorded as driving it" };
  if (driver.host !== probe.host()) {
    return { state: "unknown", driver, why: `it is driven from another host (${driver.host})` };
  }
  const boot = probe.bootId();
  if (driver.bootId && boot && driver.bootId !== boot) {
    return { state: "gone", driver, why: "the host restarted since" };
  }
  if (!probe.exists(driver.pid)) {
    return { state: "gone", driver, why: `process ${driver.pid} has ended` };
  }
  const ticks = probe.startTicks(driver.pid);
  if (driver.startTicks !== null && ticks !== null && ticks !== driver.startTicks) {
    return { state: "gone", driver, why: `process ${driver.pid} has ended (its pid is reused)` };
  }
  return { state: "alive", driver };
}

/** What liveness reads of the host; a test passes its own. */
export interface ProcessProbe {
  host(): string;
  bootId(): string | null;
  exists(pid: number): boolean;
  startTicks(pid: number): number | null;
}

export const hostProbe: ProcessProbe = {
  host: hostname,
  bootId,
  exists(pid) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      // EPERM: it exists, as another user's process.
      if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
    }
    // A zombie has ended; only its parent has not collected it yet.
    return procStat(pid)?.[0] !== "Z";
  },
  startTicks,
};

function bootId(): string | null {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    return null;
  }
}

function startTicks(pid: number): number | null {
  const ticks = Number(procStat(pid)?.[19]);
  return Number.isFinite(ticks) && ticks > 0 ? ticks : null;
}

/** /proc/<pid>/stat from field 3 (state) on; null without /proc or the process. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}
