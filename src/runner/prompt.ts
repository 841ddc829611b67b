// The prompt each role gets. What a role sees is decided here, on purpose:
// R5.1 — the reviewer gets the ticket, the diff, the control results and the constraints,
// never the builder's summary or transcript (the builder's account is a claim, not evidence).
import type { PriorOutput } from "../chain/ports.js";
import type { HumanResponse, TaskInput, WorkerRequest } from "../chain/types.js";
import { DIFF_LIMIT } from "../policy/index.js";
import type { Role } from "../roles/role-names.js";
import { assertLimit, DiffTooLargeError, diffBytes } from "./diff-budget.js";
import { FENCE_PREAMBLE, fence } from "./fence.js";

export const LIMITS = {
  title: 512,
  body: 32 * 1024,
  plan: 32 * 1024,
  /** The default for the diff; the repository's `review.max_diff_bytes` replaces it. */
  diff: DIFF_LIMIT.default,
  control: 16 * 1024,
  answer: 8 * 1024,
};

export interface ControlResultForPrompt {
  name: string;
  advisory: boolean;
  ok: boolean;
  exitCode: number | null;
  output: string;
}

export interface PromptParts {
  role: Role;
  roleDefinition: string;
  readOnlySentences?: string;
  task: TaskInput;
  prior: PriorOutput[];
  answers: Array<{ request: WorkerRequest; response: HumanResponse }>;
  diff?: string;
  /**
   * The most diff bytes the reviewer and security may be shown; LIMITS.diff when absent.
   * The diff is shown whole or not at all: over the limit, buildPrompt throws
   * DiffTooLargeError (the runner checks `diffTooLarge` first and fails the step).
   */
  diffLimitBytes?: number;
  controls?: ControlResultForPrompt[];
  constraints: string[];
}

export function buildPrompt(p: PromptParts): string {
  // The first line names the step; it also lets a scripted model tell the roles apart.
  const out: string[] = [
    `forgechain step: ${p.role}`,
    "",
    p.roleDefinition.trim(),
    "",
    FENCE_PREAMBLE,
  ];
  if (p.readOnlySentences) out.push("", p.readOnlySentences);
  out.push("", "## Ticket", fence(p.task.title, { label: "ticket-title", maxBytes: LIMITS.title }));
  out.push(fence(p.task.body, { label: "ticket-body", maxBytes: LIMITS.body }));

  if (p.role === "builder") {
    const plan = p.prior.find((o) => o.role === "architect")?.output;
    if (plan !== undefined) {
      out.push("", "## The architect's plan (follow it)");
      out.push(fence(JSON.stringify(plan, null, 2), { label: "plan", maxBytes: LIMITS.plan }));
    }
  }
  if ((p.role === "reviewer" || p.role === "security") && p.diff !== undefined) {
    out.push("", "## The change under review: git diff from the measured base");
    // R4.7: never a cut diff — every other part below may be cut with a visible note, the
    // change under review may not (padding that sorts first would push the payload out).
    const limit = p.diffLimitBytes ?? LIMITS.diff;
    assertLimit(limit);
    const bytes = diffBytes(p.diff);
    if (bytes > limit) throw new DiffTooLargeError(bytes, limit);
    const whole = Number.POSITIVE_INFINITY; // checked above; the fence must not cut it
    out.push(fence(p.diff || "(empty diff)", { label: "diff", maxBytes: whole }));
    out.push(
      "You did not write this code. You get the ticket, the diff and the control results; " +
        "judge the change on those, not on anyone's description of it.",
    );
  }
  if (p.controls && p.controls.length > 0) {
    out.push("", "## Control results (run by forgechain in the box after the builder)");
    for (const c of p.controls) {
      const mark = c.ok ? "passed" : c.advisory ? "failed (advisory)" : "FAILED";
      out.push(`- ${c.name}: ${mark}, exit ${c.exitCode ?? "none"}`);
      out.push(fence(c.output, { label: `control-${c.name}`, maxBytes: LIMITS.control }));
    }
  }
  if (p.answers.length > 0) {
    out.push("", "## Answers to your earlier questions");
    for (const { request, response } of p.answers) {
      out.push(`Question ${request.id}:`);
      out.push(fence(request.question, { label: "question", maxBytes: LIMITS.answer }));
      out.push(`Answer from ${response.actor}:`);
      out.push(fence(response.answer, { label: "answer", maxBytes: LIMITS.answer }));
    }
  }
  if (p.constraints.length > 0) {
    out.push("", "## Constraints");
    for (const c of p.constraints) out.push(`- ${c}`);
  }
  out.push(
    "",
    "Finish by calling the StructuredOutput tool with your result. Only an explicit PASS in " +
      "valid output passes; if you cannot finish, answer FAIL and say why, or ask one question " +
      "with the optional `request` field.",
  );
  return out.join("\n");
}
