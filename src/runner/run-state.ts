// What the runner keeps about a run between its steps, in <run dir>/state.json: the control
// results (for the reviewer's prompt and the run output), the report's notes, and what the
// setup phase left for the steps. Facts the engine needs live in the journal, not here.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ControlRun } from "./controls-exec.js";
import type { SetupResults } from "./setup-phase.js";
import type { UsageSource } from "./step-usage.js";

export interface RunState {
  controls: ControlRun[];
  controlLines: string[];
  /** What each step's agent cost, one entry per attempt (the run output's cost section). */
  usage?: UsageSource[];
  notes: string[];
  /** The setup phase's workspace and results (setup-phase.ts), once it ran. */
  setup?: SetupResults;
  /** Connections the boxes' egress proxies refused (the run output's network section). */
  denied?: DeniedConnection[];
}

export interface DeniedConnection {
  phase: string;
  role?: string;
  host: string;
  port: number;
  reason: string;
}

/** The run output lists at most this many refusals; the journal keeps each box's first 50. */
export const MAX_KEPT_DENIALS = 200;

/** The `egress.denied` events among `events`, added to the state's list (capped). */
export function keepDenials(
  state: RunState,
  events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>,
): boolean {
  const found = events.filter((e) => e.type === "egress.denied");
  if (found.length === 0) return false;
  state.denied ??= [];
  const list = state.denied;
  for (const { data: d } of found) {
    if (list.length >= MAX_KEPT_DENIALS) break;
    list.push({
      phase: String(d.phase),
      ...(typeof d.role === "string" ? { role: d.role } : {}),
      host: String(d.host),
      port: Number(d.port),
      reason: String(d.reason),
    });
  }
  return true;
}

export async function loadRunState(runDir: string): Promise<RunState> {
  const file = join(runDir, "state.json");
  if (!existsSync(file)) return { controls: [], controlLines: [], notes: [] };
  return JSON.parse(await readFile(file, "utf8")) as RunState;
}

export async function saveRunState(runDir: string, state: RunState): Promise<void> {
  await writeFile(join(runDir, "state.json"), JSON.stringify(state, null, 2));
}
