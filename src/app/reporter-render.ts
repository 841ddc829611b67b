/**
 * Text the reporter posts: the sticky run comment (R9.2) and the draft PR body (R9.5).
 * Agent output and issue text are untrusted: they only appear inside fenced blocks (no
 * markup, no @mentions, no images) and cut to a size.
 */
import type { StoredRequest } from "../chain/ports.js";
import type { RunEvent, RunRecord, StepRecord } from "../chain/types.js";
import { verifyInputsNotice, verifyInputsTouched } from "../policy/index.js";

const STATE_MARK: Record<string, string> = {
  queued: "⏳",
  running: "🔄",
  paused: "⏸️",
  passed: "✅",
  failed: "❌",
  cancelled: "🚫",
  blocked: "⏸️",
};

/** A fenced block that the text cannot close: its fence is longer than any run of ` in it. */
export function fence(text: string, max = 2000): string {
  const cut = text.length > max ? `${text.slice(0, max)}\n… (cut at ${max} characters)` : text;
  const longest = Math.max(0, ...(cut.match(/`+/g) ?? []).map((m) => m.length));
  const f = "`".repeat(Math.max(3, longest + 1));
  return `${f}text\n${cut}\n${f}`;
}

/** A short inline value from untrusted text: one line, no markup characters. */
export function inline(text: string, max = 120): string {
  const one = text.replace(/\s+/g, " ").trim();
  const clean = one.replace(/[`*_<>[\]|@#\\]/g, "");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export interface StickyInput {
  run: RunRecord;
  steps: StepRecord[];
  pending: StoredRequest[];
  events: RunEvent[];
  gate: { conclusion: string; title: string; awaitingApproval: boolean } | null;
  pull: { number: number } | null;
  progress?: { role: string; lastTool?: string; refusal?: string } | undefined;
}

export function renderSticky(input: StickyInput): string {
  const { run, steps } = input;
  const lines: string[] = [
    `### forgechain · ${run.chain} chain · ${STATE_MARK[run.state] ?? ""} ${run.state}`,
    "",
    `Run \`${run.id}\`${run.branch ? ` · branch \`${run.branch}\`` : ""}${run.baseSha ? ` · base \`${run.baseSha.slice(0, 12)}\`` : ""}`,
    "",
    "| step | role | state | verdict |",
    "|---|---|---|---|",
  ];
  for (const s of steps) {
    const verdict = s.decision
      ? `${s.decision.verdict}${s.decision.overridden ? " (engine override)" : ""}`
      : "—";
    lines.push(
      `| ${s.index + 1} | ${s.role} | ${STATE_MARK[s.state] ?? ""} ${s.state}${s.attempt > 1 ? ` (attempt ${s.attempt})` : ""} | ${verdict} |`,
    );
  }
  const failed = steps.find((s) => s.state === "failed");
  if (failed?.decision?.reasons.length) {
    lines.push(
      "",
      `**Why ${failed.role} failed:**`,
      fence(failed.decision.reasons.join("\n"), 1500),
    );
  }
  const finished = [...input.events].reverse().find((e) => e.type === "run.finished");
  const runReasons = (finished?.data.reasons as unknown[] | undefined)?.map(String) ?? [];
  if (!failed && run.state === "failed" && runReasons.length > 0) {
    lines.push("", "**Why the run failed:**", fence(runReasons.join("\n"), 1500));
  }
  if (input.progress && (run.state === "running" || run.state === "queued")) {
    const p = input.progress;
    const what = p.refusal ? `refused: ${p.refusal}` : (p.lastTool ?? "working");
    lines.push("", `Now: ${p.role} — ${inline(what)}`);
  }
  for (const q of input.pending) {
    lines.push(
      "",
      `**Question from ${q.role}** (request \`${q.id}\`):`,
      fence(`${q.question}${q.context ? `\n\n${q.context}` : ""}`, 3000),
    );
    if (q.choices?.length)
      lines.push(`Choices: ${q.choices.map((c) => `\`${inline(c, 60)}\``).join(", ")}`);
  }
  const refusals = input.events.filter((e) => e.type === "seal.refused").slice(-5);
  if (refusals.length > 0) {
    lines.push("", "**Refused answers** (counted as no; nothing changed):");
    for (const e of refusals) {
      const d = e.data as { gate?: string; reason?: string; actor?: string };
      lines.push(
        `- ${e.at}: \`/forge ${inline(String(d.gate ?? "?"), 20)}\` by ${inline(String(d.actor ?? "?"), 40)} — ${inline(String(d.reason ?? "?"), 200)}`,
      );
    }
  }
  if (input.gate) {
    lines.push(
      "",
      `**forge/gate:** ${input.gate.conclusion === "success" ? "✅" : "❌"} ${input.gate.title}`,
    );
  }
  const verifyNotice = verifyInputsNotice(
    verifyInputsTouched(gateProtectedFiles(input.events)),
    `/forge approve ${run.id}`,
  );
  if (verifyNotice) lines.push("", `⚠️ ${verifyNotice}`);
  lines.push("", `**Next:** ${nextAction(input)}`);
  return lines.join("\n");
}

/**
 * The protected files the newest gate decision found (the reporter journals them with the gate
 * as "gate.set", GATE_EVENT in reporter.ts). Verify inputs are protected by default, so the
 * ones a change touched are among them (R4.8).
 */
function gateProtectedFiles(events: readonly RunEvent[]): string[] {
  const gate = [...events].reverse().find((e) => e.type === "gate.set");
  const files = gate?.data.protectedFiles;
  return Array.isArray(files) ? files.filter((f): f is string => typeof f === "string") : [];
}

function nextAction(input: StickyInput): string {
  const { run } = input;
  const id = run.id;
  switch (run.state) {
    case "queued":
    case "running":
      return `wait for the chain, or stop it with \`/forge cancel ${id}\`.`;
    case "paused":
      if (input.pending.length > 0) {
        const q = input.pending[0];
        return `answer with \`/forge respond {"run_id":"${id}","request_id":"${q?.id ?? ""}","answer":"…"}\`, then \`/forge resume ${id}\`.`;
      }
      return `every question is answered: continue with \`/forge resume ${id}\`.`;
    case "passed":
      if (input.gate?.awaitingApproval) {
        return `the change touches protected paths; a maintainer reviews it and releases the gate with \`/forge approve ${id}\`.`;
      }
      return input.pull
        ? `review pull request #${input.pull.number}; \`forge/gate\` is open.`
        : "review the result; `forge/gate` is open.";
    case "failed":
      return "read the failed step's check run and the run output, then start again with `/forge run`.";
    default:
      return "start a new run with `/forge run`.";
  }
}

export function renderPullBody(input: {
  run: RunRecord;
  steps: StepRecord[];
  issueNumber: number;
  runOutputPath: string | null;
}): string {
  const { run, steps } = input;
  const architect = steps.find((s) => s.role === "architect");
  const builder = steps.find((s) => s.role === "builder");
  const plan = (architect?.output as { plan?: unknown } | null)?.plan;
  const claim = builder?.output as { summary?: unknown; changes?: unknown } | null;
  const lines = [
    `Closes #${input.issueNumber} — opened by forgechain run \`${run.id}\`.`,
    "",
    "| role | verdict |",
    "|---|---|",
    ...steps.map((s) => `| ${s.role} | ${s.decision?.verdict ?? s.state} |`),
    "",
    "## Plan (architect)",
    plan === undefined ? "_no plan_" : fence(JSON.stringify(plan, null, 2), 12_000),
    "",
    "## The builder's claim",
    "> **This is a claim.** Nothing verifies the builder's own account; the diff, the controls and the reviewer/security verdicts are the evidence.",
    "",
    claim
      ? fence(JSON.stringify({ summary: claim.summary, changes: claim.changes }, null, 2), 12_000)
      : "_none_",
    "",
    input.runOutputPath ? `Run output: \`${input.runOutputPath}\` on this branch.` : "",
    "",
    "Merging is gated by the `forge/gate` check.",
  ];
  return lines.join("\n");
}
