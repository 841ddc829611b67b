// Builds an engine on the REAL SQLite journal in a temp file.
import { createChainEngine, type StartRunInput } from "../../src/chain/engine.js";
import type { Logger } from "../../src/chain/ports.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import type { ScriptedRunner } from "./scripted-runner.js";

export interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg?: string;
}

export function memoryLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    lines.push({ level, obj, ...(msg ? { msg } : {}) });
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

let counter = 0;
export function counterIds(prefix = "run") {
  return { newId: () => `${prefix}${++counter}${Math.random().toString(16).slice(2, 10)}` };
}

export function makeEngine(file: string, runner: ScriptedRunner, maxParallel?: number) {
  const store = openJournal(file);
  const logger = memoryLogger();
  const engine = createChainEngine({
    store,
    runner,
    clock: { now: () => new Date() },
    logger,
    ids: counterIds(),
    ...(maxParallel ? { maxParallel } : {}),
  });
  return { engine, store, logger };
}

export const SNAPSHOT = {
  roles: { architect: "# architect\nPlan only.", builder: "# builder" },
  settings: { architect: { permissions: { deny: ["Edit"] } } },
  schemas: { architect: { type: "object" } },
  skills: { builder: ["tdd"] },
  provider: { name: "claude", version: "2.1.332" },
};

export function changeRun(overrides: Partial<StartRunInput> = {}): StartRunInput {
  return {
    chain: "change",
    task: { title: "Add a greeting", body: "Print hello to users", number: 7 },
    repo: { remote: "/tmp/repo", baseRef: "main", fullName: "acme/widgets" },
    snapshotContent: SNAPSHOT,
    requestBudget: 2,
    ...overrides,
  };
}
