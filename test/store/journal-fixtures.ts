// Shared builders for journal and engine tests: real temp files, plain records.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freezeSnapshot } from "../../src/chain/snapshot.js";
import type { RunRecord, StepRecord, WorkerFeedback } from "../../src/chain/types.js";
import { CHAINS } from "../../src/roles/role-names.js";

export interface TempDir {
  dir: string;
  file(name: string): string;
  cleanup(): void;
}

export function tempDir(prefix = "forge-journal-"): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function makeRun(
  id: string,
  overrides: Partial<RunRecord> = {},
): { run: RunRecord; steps: StepRecord[] } {
  const at = "2026-01-01T00:00:00.000Z";
  const run: RunRecord = {
    id,
    chain: "change",
    state: "queued",
    task: { title: "Add a greeting", body: "Print hello" },
    repo: { remote: "/tmp/nowhere", baseRef: "main", fullName: "acme/widgets" },
    baseSha: null,
    branch: null,
    snapshot: freezeSnapshot({ provider: "claude", settings: { architect: { a: 1 } } }),
    requestBudget: 2,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
  const steps = CHAINS[run.chain].map((role, index) => ({
    runId: id,
    index,
    role,
    state: "queued" as const,
    attempt: 0,
    decision: null,
    output: null,
    startedAt: null,
    finishedAt: null,
  }));
  return { run, steps };
}

export function makeFeedback(overrides: Partial<WorkerFeedback> = {}): WorkerFeedback {
  return {
    id: "fb-1",
    role: "architect",
    task: "plan the greeting",
    attempt: 1,
    disposition: "completed",
    summary: "Planned the change.",
    evidence: ["docs/plan.md"],
    ...overrides,
  };
}

export function makeQuestion(
  requestId: string,
  overrides: Partial<WorkerFeedback> = {},
): WorkerFeedback {
  return makeFeedback({
    id: `fb-${requestId}`,
    disposition: "clarification",
    summary: "Need to know who gets the greeting.",
    request: {
      id: requestId,
      kind: "clarification",
      question: "Who receives the greeting?",
      context: "The issue does not say.",
      choices: ["users", "admins"],
    },
    ...overrides,
  });
}
