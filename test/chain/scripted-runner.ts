// A StepRunner implementing the port with scripted answers per role and attempt: the layer
// below the domain, real enough to drive the engine, with a record of every call. Scripts hand
// the engine an agent's output and the runner's measurements; the engine judges them.
import type { RunArtifacts, StepInput, StepResult, StepRunner } from "../../src/chain/ports.js";
import type { RunRecord, StepRecord } from "../../src/chain/types.js";
import type { Role } from "../../src/roles/role-names.js";
import { validOutput } from "../roles/output-schema-fixtures.js";

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

/**
 * A schema-valid structured output of the role saying `verdict`, whose summary starts with
 * `lead` (padded to the schema's 200 characters): what a runner hands the engine as the
 * agent's output. The engine judges it; the script never decides the verdict.
 */
export function agentOutput(
  role: Role,
  verdict: string,
  lead: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const filler = " (A scripted agent's answer, standing in for a real one.)";
  return {
    ...validOutput(role),
    verdict,
    summary: `${lead}${filler.repeat(5)}`,
    ...extra,
  };
}

/** The real runner hands the reviewing steps the change's diff (security's secret rule). */
function diffFor(role: Role): { diff?: string } {
  return role === "reviewer" || role === "security" ? { diff: "" } : {};
}

export const pass: Script = (input) => ({
  agentOutput: agentOutput(input.role, "PASS", `${input.role} output`),
  failures: [],
  ...diffFor(input.role),
  events: [{ type: "tool.used", data: { tool: "Read" } }],
  ...(input.role === "architect" ? { runPatch: { baseSha: "a".repeat(40) } } : {}),
});

/** The agent wrote FAIL, and the runner measured `reasons` (tests failing, …). */
export function fail(...reasons: string[]): Script {
  return (input) => ({
    agentOutput: agentOutput(input.role, "FAIL", reasons.join(" ")),
    failures: reasons,
    ...diffFor(input.role),
    events: [],
  });
}

/** The agent asks a human `requestId` (with verdict FAIL, as the roles are told to). */
export function ask(requestId: string): Script {
  return (input) => ({
    agentOutput: agentOutput(input.role, "FAIL", "Who should receive the greeting?", {
      request: {
        id: requestId,
        kind: "clarification",
        question: "Who receives the greeting?",
        context: "The issue does not say.",
        choices: ["users", "admins"],
      },
    }),
    failures: [],
    ...diffFor(input.role),
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
