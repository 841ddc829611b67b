// R9.3: `.forge/run-output-<run-id>.md` — what every role said, the verdicts, the diff stat,
// the builder's own account marked as a claim (nothing verifies it, R5.2), advisory warnings.
// Everything passes through `redact` before it is written: this file is committed and pushed.
import type { RunRecord, StepRecord } from "../chain/types.js";
import { verifyInputsNotice } from "../policy/index.js";
import { addUsage, formatUsage, type StepUsage, type UsageSource } from "./step-usage.js";

export interface ControlSummary {
  name: string;
  advisory: boolean;
  ok: boolean;
  exitCode: number | null;
}

export interface RunOutputInput {
  run: RunRecord;
  steps: StepRecord[];
  diffStat: string;
  controls: ControlSummary[];
  notes: string[];
  /**
   * Changed files that verify or a control executes (`verifyInputsTouched` over the diff's
   * files): named so nobody reads the controls' pass as independent of the builder (R4.8).
   */
  verifyInputs?: string[];
  /** The run's setup phase, when it ran (setup-phase.ts). */
  setup?: { commands: string[]; results: string[]; seconds?: number };
  /** What each step's agent cost, one entry per attempt (step-usage.ts); none: not shown. */
  usage?: UsageSource[];
  redact: (text: string) => Promise<string>;
}

export function runOutputPath(runId: string): string {
  return `.forge/run-output-${runId}.md`;
}

const MAX_SECTION = 48 * 1024;

export async function renderRunOutput(input: RunOutputInput): Promise<string> {
  const { run, steps } = input;
  const lines: string[] = [
    `# forgechain run ${run.id}`,
    "",
    `- chain: ${run.chain}`,
    `- chain verdict: ${chainVerdict(steps)}`,
    `- base: ${run.baseSha ?? "(not measured)"}`,
    `- branch: ${run.branch ?? "(none)"}`,
    `- snapshot digest: sha256:${run.snapshot.digest}`,
    "",
  ];
  if (input.setup) {
    const { commands, results, seconds } = input.setup;
    lines.push("## Setup", "");
    for (const c of commands) lines.push(`- \`${c.replaceAll("`", "'")}\``);
    lines.push(
      "",
      `Ran once before the first step${seconds !== undefined ? `, in ${seconds} s` : ""}; ` +
        (results.length > 0
          ? `what it left for every step: ${results.map((r) => `\`${r.replaceAll("`", "'")}\``).join(", ")}.`
          : "it left nothing the steps see."),
      "",
    );
  }
  lines.push(
    "## Verdicts",
    "",
    "| step | role | verdict | attempt | overridden |",
    "|---|---|---|---|---|",
  );
  for (const s of steps) {
    const verdict = s.decision?.verdict ?? (s.state === "queued" ? "not run" : s.state);
    lines.push(
      `| ${s.index + 1} | ${s.role} | ${verdict} | ${s.attempt} | ${s.decision?.overridden ? "yes" : "no"} |`,
    );
  }
  const warnings = input.controls.filter((c) => c.advisory && !c.ok);
  if (input.controls.length > 0) {
    lines.push("", "## Controls", "");
    for (const c of input.controls) {
      const mark = c.ok ? "✅" : c.advisory ? "⚠️ advisory" : "❌";
      lines.push(`- ${mark} \`${c.name}\` (exit ${c.exitCode ?? "none"})`);
    }
  }
  if (warnings.length > 0) {
    lines.push(
      "",
      `> ⚠️ ${warnings.length} advisory control(s) failed: ${warnings.map((w) => w.name).join(", ")}. They do not block.`,
    );
  }
  const verifyNotice = verifyInputsNotice(input.verifyInputs ?? [], `/forge approve ${run.id}`);
  if (verifyNotice) lines.push("", "## What verify ran", "", `> ⚠️ ${verifyNotice}`);
  lines.push(...usageSection(steps, input.usage ?? []));
  lines.push("", "## Diff stat", "", "```", input.diffStat || "(no changes)", "```");
  for (const s of steps) {
    if (!s.decision && s.output == null) continue;
    lines.push("", `## ${s.role}`);
    if (s.decision) {
      lines.push(
        "",
        `Verdict: **${s.decision.verdict}**${s.decision.overridden ? " (engine override)" : ""}`,
      );
      for (const r of s.decision.reasons) lines.push(`- ${r}`);
    }
    if (s.role === "builder" && s.output != null) {
      lines.push(
        "",
        "> **Claim.** The builder's own account below is a claim: nothing verifies it. The diff and the control results are the evidence.",
      );
    }
    if (s.output != null) {
      const json = JSON.stringify(s.output, null, 2).slice(0, MAX_SECTION);
      lines.push("", "```json", json.replaceAll("```", "`\u200b``"), "```");
    }
  }
  if (input.notes.length > 0) {
    lines.push("", "## Notes", "");
    for (const n of input.notes) lines.push(`- ${n}`);
  }
  lines.push("");
  return input.redact(lines.join("\n"));
}

/** Cost and tokens per step (its attempts added up) and for the whole run. */
function usageSection(steps: StepRecord[], usage: UsageSource[]): string[] {
  if (usage.length === 0) return [];
  const lines = ["", "## Cost and tokens", "", "| step | role | attempts | cost and tokens |"];
  lines.push("|---|---|---|---|");
  let total: StepUsage | null = null;
  for (const s of steps) {
    let sum: StepUsage | null = null;
    const mine = usage.filter((u) => u.index === s.index);
    for (const u of mine) sum = addUsage(sum, u.usage);
    if (!sum) continue;
    total = addUsage(total, sum);
    lines.push(`| ${s.index + 1} | ${s.role} | ${mine.length} | ${formatUsage(sum)} |`);
  }
  if (total) lines.push(`| | **total** | | **${formatUsage(total)}** |`);
  return lines;
}

/** PASS only when every step of the chain passed (R3.2); the run's own state is not final yet. */
function chainVerdict(steps: StepRecord[]): string {
  if (steps.length > 0 && steps.every((s) => s.state === "passed")) return "PASS";
  const failed = steps.find((s) => s.state === "failed");
  return failed ? `FAIL (at ${failed.role})` : "not finished";
}
