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
}

export async function loadRunState(runDir: string): Promise<RunState> {
  const file = join(runDir, "state.json");
  if (!existsSync(file)) return { controls: [], controlLines: [], notes: [] };
  return JSON.parse(await readFile(file, "utf8")) as RunState;
}

export async function saveRunState(runDir: string, state: RunState): Promise<void> {
  await writeFile(join(runDir, "state.json"), JSON.stringify(state, null, 2));
}
