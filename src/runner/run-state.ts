// What the runner keeps about a run between its steps, in <run dir>/state.json: the control
// results (for the reviewer's prompt and the run output), the report's notes, and whether the
// setup commands ran. Facts the engine needs live in the journal, not here.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ControlRun } from "./controls-exec.js";

export interface RunState {
  controls: ControlRun[];
  controlLines: string[];
  notes: string[];
  setupDone: boolean;
}

export async function loadRunState(runDir: string): Promise<RunState> {
  const file = join(runDir, "state.json");
  if (!existsSync(file)) return { controls: [], controlLines: [], notes: [], setupDone: false };
  return JSON.parse(await readFile(file, "utf8")) as RunState;
}

export async function saveRunState(runDir: string, state: RunState): Promise<void> {
  await writeFile(join(runDir, "state.json"), JSON.stringify(state, null, 2));
}
