// A StepRunner implementing the port with scripted answers per role and attempt: the layer
// below the domain, real enough to drive the engine, with a record of every call.
import type { RunArtifacts, StepInput, StepResult, StepRunner } from "../../src/chain/ports.js";
import type { RunRecord, StepRecord, WorkerFeedback } from "../../src/chain/types.js";
import type { Role } from "../../src/roles/role-names.js";

export type Script = (input: StepInput) => Promise<StepResult> | StepResult;

export interface RunnerCall {
  runId: string;
  role: Role;
  attempt: number;
  prior: StepInput["prior"];
  answers: StepInput["answers"];
}

export class ScriptedRunner implements StepRunner {
  readonly calls: RunnerCall[] = [];
  readonly finished: Array<{ runId: string; states: string[] }> = [];
  private readonly scripts = new Map<Role, Script[]>();
  active = 0;
  maxActive = 0;

  /** Queue scripts for a role, used one per call in order; afterwards every call passes. */
  on(role: Role, ...scripts: Script[]): this {
    this.scripts.set(role, [...(this.scripts.get(role) ?? []), ...scripts]);
    return this;
  }

  async runStep(input: StepInput): Promise<StepResult> {
    this.calls.push({
      runId: input.run.id,
      role: input.role,
      attempt: input.attempt,
      prior: input.prior,
      answers: input.answers,
    });
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      const script = this.scripts.get(input.role)?.shift() ?? pass;
      return await script(input);
    } finally {
      this.active--;
    }
  }

  async finishRun(run: RunRecord, steps: StepRecord[]): Promise<RunArtifacts> {
    this.finished.push({ runId: run.id, states: steps.map((s) => s.state) });
    return {
      runOutputPath: `.forge/run-output-${run.id}.md`,
      branch: "forge/1-greeting",
      headSha: "f".repeat(40),
      events: [{ type: "output.committed", data: { path: `.forge/run-output-${run.id}.md` } }],
    };
  }

  callsFor(role: Role): RunnerCall[] {
    return this.calls.filter((c) => c.role === role);
  }
}

export function feedbackFor(
  input: StepInput,
  overrides: Partial<WorkerFeedback> = {},
): WorkerFeedback {
  return {
    id: `${input.role}-${input.attempt}`,
    role: input.role,
    task: `${input.role} work`,
    attempt: input.attempt,
    disposition: "completed",
    summary: `${input.role} did its work`,
    evidence: [],
    ...overrides,
  };
}

export const pass: Script = (input) => ({
  decision: { role: input.role, verdict: "PASS", reasons: [], overridden: false },
  output: { verdict: "PASS", summary: `${input.role} output`, attempt: input.attempt },
  feedback: feedbackFor(input),
  events: [{ type: "tool.used", data: { tool: "Read" } }],
  ...(input.role === "architect" ? { runPatch: { baseSha: "a".repeat(40) } } : {}),
});

export function fail(...reasons: string[]): Script {
  return (input) => ({
    decision: { role: input.role, verdict: "FAIL", reasons, overridden: false },
    output: { verdict: "FAIL", summary: reasons.join(" ") },
    feedback: feedbackFor(input),
    events: [],
  });
}

export function ask(requestId: string, feedbackId?: string): Script {
  return (input) => ({
    decision: {
      role: input.role,
      verdict: "FAIL",
      reasons: ["needs an answer"],
      overridden: false,
    },
    output: null,
    feedback: feedbackFor(input, {
      ...(feedbackId ? { id: feedbackId } : {}),
      disposition: "clarification",
      summary: "Who should receive the greeting?",
      request: {
        id: requestId,
        kind: "clarification",
        question: "Who receives the greeting?",
        context: "The issue does not say.",
        choices: ["users", "admins"],
      },
    }),
    events: [],
  });
}

export function throws(message: string): Script {
  return () => {
    throw new Error(message);
  };
}

/** A script that waits until released (or its signal aborts), then runs `then`. */
export function gate(then: Script = pass) {
  let release: () => void = () => {};
  let started: () => void = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  const hasStarted = new Promise<void>((r) => {
    started = r;
  });
  const script: Script = async (input) => {
    started();
    await new Promise<void>((resolve, reject) => {
      released.then(resolve);
      input.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
    });
    return then(input);
  };
  return { script, release, started: hasStarted };
}
