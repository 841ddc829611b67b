// Shaping what comes up from the runner before it enters the journal.
import type { PriorOutput, StepInput, StoredRequest, Transition } from "./ports.js";
import type { HumanResponse, StepRecord, WorkerRequest } from "./types.js";

export type NewEvent = Transition["events"][number];

// Event types the engine writes itself; a runner event with such a name is renamed so that the
// history cannot be spoofed from below (a runner saying "step.finished").
const ENGINE_PREFIXES = ["run.", "step.", "feedback.", "request."];
const MAX_REASON = 500;

/** Runner events as journal events: engine names refused, data forced to JSON, step stamped. */
export function runnerEvents(value: unknown, stamp: Record<string, unknown>): NewEvent[] {
  if (!Array.isArray(value)) return [];
  return value.map((e) => {
    const raw = (e ?? {}) as Record<string, unknown>;
    let type = typeof raw.type === "string" && raw.type !== "" ? raw.type : "runner.event";
    if (ENGINE_PREFIXES.some((p) => type.startsWith(p))) type = `runner.${type}`;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(JSON.stringify(raw.data ?? {}));
      if (data === null || typeof data !== "object" || Array.isArray(data)) data = { value: data };
    } catch {
      data = { error: "event data was not JSON" };
    }
    // The engine's own keys win: a runner cannot claim another step.
    return { type, data: { ...data, ...stamp } };
  });
}

/** Only the run facts a runner may set (base sha, branch), and only as strings. */
export function pickRunPatch(value: unknown): NonNullable<Transition["run"]> {
  if (value === null || typeof value !== "object") return {};
  const v = value as Record<string, unknown>;
  const patch: NonNullable<Transition["run"]> = {};
  if (typeof v.baseSha === "string") patch.baseSha = v.baseSha;
  if (typeof v.branch === "string") patch.branch = v.branch;
  return patch;
}

export function requestData(r: WorkerRequest): WorkerRequest {
  return {
    id: r.id,
    kind: r.kind,
    question: r.question,
    context: r.context,
    ...(r.choices ? { choices: [...r.choices] } : {}),
  };
}

/** Outputs of the passed steps before `step`, and the answers to `step`'s own requests. */
export function stepContext(
  steps: StepRecord[],
  step: StepRecord,
  requests: StoredRequest[],
  responses: HumanResponse[],
): Pick<StepInput, "prior" | "answers"> {
  const prior: PriorOutput[] = [];
  for (const s of steps) {
    if (s.index < step.index && s.state === "passed" && s.decision) {
      prior.push({ role: s.role, decision: s.decision, output: s.output });
    }
  }
  const byRequest = new Map(responses.map((x) => [x.requestId, x]));
  const answers: StepInput["answers"] = [];
  for (const q of requests) {
    const response = byRequest.get(q.id);
    if (q.role === step.role && response) answers.push({ request: requestData(q), response });
  }
  return { prior, answers };
}

export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
}
