// What the Action tells the workflow (R10.3): step outputs in $GITHUB_OUTPUT, the job summary
// in $GITHUB_STEP_SUMMARY, and workflow commands on stdout (groups, notices, errors). Text that
// came from an issue, a comment or a model is data: a workflow command's message is escaped the
// way the runner unescapes it (%, CR, LF), so no such text can start a command of its own
// (`::add-mask::`, `::set-output::`, `::stop-commands::`) — and an output's value never ends its
// heredoc early (its delimiter is random and checked against the value).
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { codeSpan } from "../policy/index.js";

export type ActionVerdict = "PASS" | "FAIL" | "PAUSED" | "REFUSED" | "REPORTED";

export interface ActionOutputs {
  run_id: string;
  verdict: ActionVerdict;
  branch: string;
  pull_request: string;
  gate: string;
}

/** The runner's escaping of a workflow command's message. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** … and of a property value (`title=`, `file=`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One workflow command line, e.g. `::notice title=forgechain::the run paused`. */
export function workflowCommand(
  name: "group" | "endgroup" | "notice" | "warning" | "error",
  message = "",
  properties: Record<string, string> = {},
): string {
  const props = Object.entries(properties)
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}\n`;
}

/** Appends each output as `name<<DELIMITER` … `DELIMITER` (multi-line safe). */
export function writeOutputs(file: string, outputs: ActionOutputs): void {
  let text = "";
  for (const [name, value] of Object.entries(outputs)) {
    let delimiter = `forge_${randomBytes(8).toString("hex")}`;
    while (value.includes(delimiter)) delimiter = `forge_${randomBytes(8).toString("hex")}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  appendFileSync(file, text);
}

export interface SummaryInput {
  verdict: ActionVerdict;
  runId?: string;
  /** issue or pull request, with its URL; null when the event named none that forgechain could use. */
  subject: { number: number; url: string } | null;
  steps: Array<{ role: string; verdict: string; reason?: string }>;
  gate?: string;
  branch?: string;
  pullRequest?: { number: number; url: string };
  /** What a human must do next (a question to answer, an approval), or why nothing ran. */
  next?: string;
}

/** The job summary: the verdict table, the gate and links. Untrusted text in code spans. */
export function summaryMarkdown(s: SummaryInput): string {
  const lines = s.subject
    ? [
        `## forgechain: ${s.verdict} on #${s.subject.number}`,
        "",
        `[#${s.subject.number}](${s.subject.url})${s.runId ? ` · run ${codeSpan(s.runId)}` : ""}`,
        "",
      ]
    : [`## forgechain: ${s.verdict}`, ""];
  if (s.steps.length > 0) {
    lines.push("| step | verdict | why |", "|---|---|---|");
    for (const st of s.steps) {
      lines.push(
        `| ${cell(st.role)} | ${cell(st.verdict)} | ${st.reason ? cell(st.reason) : ""} |`,
      );
    }
    lines.push("");
  }
  if (s.gate) lines.push(`**Gate:** ${codeSpan(s.gate)}`, "");
  if (s.branch) lines.push(`**Branch:** ${codeSpan(s.branch)}`, "");
  if (s.pullRequest) {
    lines.push(`**Pull request:** [#${s.pullRequest.number}](${s.pullRequest.url})`, "");
  }
  if (s.next) lines.push(`**Next:** ${codeSpan(s.next)}`, "");
  return lines.join("\n");
}

/**
 * A table cell: a code span whose pipes are escaped — GitHub splits a table row at a pipe even
 * inside a code span, and renders `\|` there as a pipe.
 */
function cell(text: string): string {
  return codeSpan(text).replace(/\|/g, "\\|");
}

export function writeSummary(file: string, s: SummaryInput): void {
  appendFileSync(file, `${summaryMarkdown(s)}\n`);
}
