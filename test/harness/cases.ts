/**
 * Table-driven tool-call cases for real-CLI runs. Each inner list is one assistant turn (its
 * calls go out in one message, so the CLI may run them concurrently: put a call that needs an
 * earlier one's effect in a later turn). After the run every case is matched to the
 * tool_result the CLI sent back and judged; `mismatches()` lists every case that went wrong,
 * so one failing run reports all its problems at once.
 */
import { type ClaudeRunOptions, type ClaudeRunResult, runClaude } from "./claude-run.js";
import { type ToolCall, type ToolResult, toolUseId } from "./model-server.js";
import { type Layer, refusalLayer } from "./refusal.js";

export interface Case {
  label: string;
  call: ToolCall;
  /** "allowed": ran without error; "refused": refused by one of `layers` (default: any). */
  expect: "allowed" | "refused";
  layers?: Layer[];
  /** Extra check on the result text (e.g. the guard's reason names the rule). */
  text?: RegExp;
  /**
   * Layer variants (test/harness/layers.ts) this case applies to; default all. A case one layer
   * is not responsible for (measured gap, not its rule) is left out of that layer's proof.
   */
  only?: Array<"real" | "settings-only" | "guard-only">;
}

export interface CaseOutcome {
  case: Case;
  result: ToolResult | undefined;
  layer: Layer | "missing";
}

export interface CasesRun {
  run: ClaudeRunResult;
  outcomes: CaseOutcome[];
  mismatches(): string[];
}

export async function runCases(
  turns: Case[][],
  options: Omit<ClaudeRunOptions, "script">,
): Promise<CasesRun> {
  const run = await runClaude({
    ...options,
    script: { turns: turns.map((cases) => ({ tools: cases.map((c) => c.call) })) },
  });
  const byId = new Map(run.toolResults.map((r) => [r.toolUseId, r]));
  const outcomes: CaseOutcome[] = turns.flatMap((cases, t) =>
    cases.map((c, i) => {
      const result = byId.get(toolUseId(t, i));
      return { case: c, result, layer: result ? refusalLayer(result) : "missing" };
    }),
  );
  if (process.env.FORGE_HARNESS_DEBUG) {
    for (const o of outcomes) {
      const text = o.result?.content.replace(/\s+/g, " ").slice(0, 160) ?? "";
      process.stderr.write(`[harness] ${o.case.label} → ${o.layer}: ${text}\n`);
    }
    process.stderr.write(`[harness] run took ${run.durationMs} ms, exit ${run.exitCode}\n`);
  }
  return {
    run,
    outcomes,
    mismatches: () => outcomes.flatMap(judge),
  };
}

function judge(o: CaseOutcome): string[] {
  const c = o.case;
  const got = o.result ? `${o.layer}: ${o.result.content.slice(0, 240)}` : "no tool_result";
  const problems: string[] = [];
  if (o.layer === "missing") {
    problems.push(`${c.label}: no tool_result came back`);
  } else if (c.expect === "allowed" && o.layer !== "allowed") {
    problems.push(`${c.label}: expected allowed, got ${got}`);
  } else if (c.expect === "refused") {
    const layers = c.layers ?? ["settings", "guard"];
    if (!layers.includes(o.layer)) {
      problems.push(`${c.label}: expected refused by ${layers.join("|")}, got ${got}`);
    }
  }
  if (c.text && o.result && !c.text.test(o.result.content)) {
    problems.push(`${c.label}: text does not match ${c.text}: ${got}`);
  }
  return problems;
}

// Small constructors keep the tables readable.
export const bash = (command: string): ToolCall => ({
  name: "Bash",
  input: { command, description: "scripted" },
});
export const read = (file_path: string): ToolCall => ({ name: "Read", input: { file_path } });
export const write = (file_path: string, content: string): ToolCall => ({
  name: "Write",
  input: { file_path, content },
});
export const edit = (file_path: string, old_string: string, new_string: string): ToolCall => ({
  name: "Edit",
  input: { file_path, old_string, new_string },
});
