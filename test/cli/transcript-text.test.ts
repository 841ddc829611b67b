// A journaled transcript as a person reads it (`forge logs`): each kind of stream-json line.
import { describe, expect, it } from "vitest";
import { transcriptText } from "../../src/cli/local/transcript-text.js";

const line = (o: unknown) => JSON.stringify(o);
const toolResult = (id: string, content: string, isError: boolean) =>
  line({
    type: "user",
    message: { content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }] },
  });

describe("transcriptText", () => {
  it("labels refusals as refusals and failed commands by their exit code", () => {
    const text = transcriptText(
      [
        line({ type: "system", subtype: "init", model: "m", tools: ["Bash", "Read"] }),
        line({
          type: "system",
          subtype: "api_retry",
          attempt: 2,
          max_retries: 10,
          error: "overloaded",
          error_status: 529,
        }),
        line({
          type: "assistant",
          message: {
            content: [
              { type: "text", text: "Running the tests." },
              { type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } },
            ],
          },
        }),
        toolResult("t1", "Exit code 1\nnot ok 1 - greets\n# fail 1", true),
        line({
          type: "assistant",
          message: {
            content: [{ type: "tool_use", id: "t2", name: "Read", input: { file_path: ".env" } }],
          },
        }),
        toolResult("t2", "PreToolUse:Read hook error: forge guard: .env is a secret path", true),
        toolResult("t3", Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n"), false),
        line({
          type: "result",
          subtype: "success",
          num_turns: 3,
          total_cost_usd: 0.0421,
          permission_denials: [{ tool_name: "Read" }],
          structured_output: { verdict: "FAIL", summary: "The tests fail." },
        }),
        "not json at all",
      ].join("\n"),
    );
    expect(text).toBe(
      [
        "── session start: model m, 2 tools",
        "!! model endpoint failed (overloaded, status 529): retry 2 of 10",
        "agent: Running the tests.",
        "→ Bash: npm test",
        "  ← exit 1: not ok 1 - greets",
        "        # fail 1",
        "→ Read: .env",
        "  ← REFUSED: PreToolUse:Read hook error: forge guard: .env is a secret path",
        ...[
          "  ← line 0",
          ...Array.from({ length: 11 }, (_, i) => `    line ${i + 1}`),
          "    … (18 more lines)",
        ],
        "── result: success, 3 turns, $0.0421",
        "   1 tool call(s) refused",
        "   verdict: FAIL",
        "   summary: The tests fail.",
        "  not json at all",
      ].join("\n"),
    );
  });
});
