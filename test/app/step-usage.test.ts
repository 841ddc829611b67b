// Cost and tokens per step and in total in the sticky comment, read from what the journal
// holds: the step transcript the runner journals (`runner.step.transcript`, the raw stream whose
// last `{"type":"result",…}` line carries `total_cost_usd` and `usage`), parsed by the runner's
// own reader (src/runner/step-usage.ts) so the CLI and the comment say the same.
import { afterEach, describe, expect, it } from "vitest";
import { renderSticky } from "../../src/app/reporter-render.js";
import { runUsage } from "../../src/app/step-usage.js";
import type { StepInput } from "../../src/chain/ports.js";
import type { RunEvent, RunRecord, StepRecord } from "../../src/chain/types.js";
import type { Role } from "../../src/roles/role-names.js";
import { pass } from "../chain/scripted-runner.js";
import { type AppKit, createAppKit } from "./app-kit.js";
import { issueLabeled } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

/** A stream as claude prints it with --output-format stream-json: its last line is the result. */
function stream(cost: number, usage: Record<string, number>): string {
  return [
    JSON.stringify({ type: "system", subtype: "init", session_id: "s" }),
    JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: "ok" }] } }),
    JSON.stringify({ type: "result", subtype: "success", total_cost_usd: cost, usage }),
  ].join("\n");
}

let seq = 0;
function transcript(index: number, role: Role, attempt: number, text: string): RunEvent {
  return {
    seq: ++seq,
    runId: "run9",
    type: "runner.step.transcript",
    data: { index, role, attempt, bytes: text.length, truncated: false, stream: text },
    at: "2025-01-01T00:00:00.000Z",
  };
}

const USAGE = {
  input_tokens: 1200,
  cache_creation_input_tokens: 300,
  cache_read_input_tokens: 10_000,
  output_tokens: 450,
};

describe("runUsage", () => {
  it("sums the attempts of each step and the whole run", () => {
    const usage = runUsage([
      transcript(0, "architect", 1, stream(0.01, USAGE)),
      transcript(1, "builder", 1, stream(0.02, USAGE)),
      transcript(1, "builder", 2, stream(0.03, { input_tokens: 5, output_tokens: 7 })),
    ]);
    expect(usage.steps.get(0)).toEqual({
      costUsd: 0.01,
      inputTokens: 11_500,
      cachedTokens: 10_300,
      outputTokens: 450,
      attempts: 1,
    });
    expect(usage.steps.get(1)?.costUsd).toBeCloseTo(0.05, 10);
    expect(usage.steps.get(1)?.inputTokens).toBe(11_505);
    expect(usage.steps.get(1)?.attempts).toBe(2);
    expect(usage.total?.costUsd).toBeCloseTo(0.06, 10);
    expect(usage.total?.outputTokens).toBe(907);
  });

  it("reads the last result line; a stream without one (or junk) counts nothing", () => {
    const two = `${stream(0.5, USAGE)}\n${stream(0.25, { input_tokens: 1, output_tokens: 1 })}\n`;
    expect(runUsage([transcript(0, "architect", 1, two)]).steps.get(0)?.costUsd).toBe(0.25);
    const none = runUsage([
      transcript(0, "architect", 1, '{"type":"assistant"}\nnot json\n{"type":"result"'),
    ]);
    expect(none.steps.size).toBe(0);
    expect(none.total).toBeNull();
  });

  it("a cost the runner journals itself beside the stream wins over parsing it", () => {
    const e = transcript(0, "architect", 1, stream(0.5, USAGE));
    e.data.costUsd = 0.75;
    e.data.usage = { input_tokens: 2, output_tokens: 3 };
    expect(runUsage([e]).steps.get(0)).toMatchObject({
      costUsd: 0.75,
      inputTokens: 2,
      outputTokens: 3,
    });
  });
});

const run: RunRecord = {
  id: "run9",
  chain: "change",
  state: "running",
  task: { title: "t", body: "" },
  repo: { remote: "x", baseRef: "main" },
  baseSha: null,
  branch: null,
  snapshot: { digest: "d", content: {} },
  requestBudget: 1,
  createdAt: "",
  updatedAt: "",
};
const steps: StepRecord[] = (["architect", "builder", "reviewer", "security"] as Role[]).map(
  (role, index) => ({
    runId: run.id,
    index,
    role,
    state: index < 2 ? "passed" : "queued",
    attempt: index < 2 ? 1 : 0,
    decision: null,
    output: null,
    startedAt: null,
    finishedAt: null,
  }),
);

describe("the sticky comment", () => {
  it("shows cost and tokens per step and in total", () => {
    const body = renderSticky({
      run,
      steps,
      pending: [],
      gate: null,
      pull: null,
      events: [
        transcript(0, "architect", 1, stream(0.0123, USAGE)),
        transcript(1, "builder", 1, stream(0.5, { input_tokens: 900, output_tokens: 2340 })),
      ],
    });
    expect(body).toContain("| step | role | state | verdict | cost · tokens |");
    expect(body).toContain(
      "| architect | ✅ passed | — | $0.0123 · 11.5k in (10.3k cached), 450 out |",
    );
    expect(body).toContain("| builder | ✅ passed | — | $0.5000 · 900 in, 2.3k out |");
    expect(body).toContain("| reviewer | ⏳ queued | — | — |");
    expect(body).toContain("**Cost so far:** $0.5123 · 12.4k in (10.3k cached), 2.8k out");
  });

  it("a run whose steps report nothing keeps the plain table", () => {
    const body = renderSticky({ run, steps, pending: [], gate: null, pull: null, events: [] });
    expect(body).toContain("| step | role | state | verdict |\n");
    expect(body).not.toContain("Cost");
  });

  it("reaches GitHub for a real run", async () => {
    kit = await createAppKit();
    const withTranscript = (cost: number) => (input: StepInput) => {
      const result = pass(input);
      return {
        ...result,
        events: [
          {
            type: "step.transcript",
            data: { role: input.role, attempt: input.attempt, stream: stream(cost, USAGE) },
          },
        ],
      };
    };
    kit.runner.scripted.on("architect", withTranscript(0.25)).on("builder", withTranscript(1.5));
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    const [sticky] = kit.state.commentsOn(7).filter((c) => c.body.startsWith("<!--"));
    expect(sticky?.body).toContain("✅ passed");
    expect(sticky?.body).toContain("| builder | ✅ passed | PASS | $1.5000 · 11.5k in");
    expect(sticky?.body).toContain("**Cost:** $1.7500");
  });
});
