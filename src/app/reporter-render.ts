/**
 * Text the reporter posts: the sticky run comment (R9.2) and the draft PR body (R9.5).
 * Agent output and issue text are untrusted: they only appear inside fenced blocks (no
 * markup, no @mentions, no images) and cut to a size.
 */
import type { StoredRequest } from "../chain/ports.js";
import type { RunEvent, RunRecord, StepRecord } from "../chain/types.js";
import {
  codeSpan,
  egressSummary,
  groupDenials,
  hostNetworkSentence,
  verifyInputsNotice,
  verifyInputsTouched,
} from "../policy/index.js";
import { formatUsage } from "../runner/index.js";
import { branchPlanOf } from "./branch-plan.js";
import { FAILURE_EVENT } from "./run-context.js";
import { runUsage } from "./step-usage.js";

const STATE_MARK: Record<string, string> = {
  queued: "⏳",
  running: "🔄",
  paused: "⏸️",
  passed: "✅",
  failed: "❌",
  cancelled: "🚫",
  blocked: "⏸️",
};

const ACTIVE = new Set(["queued", "running", "paused"]);

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

/**
 * The run's setup phase as a row of the table, before the steps: running, or how it ended, with
 * what it left for the steps (the commands and results come from the runner's `setup.finished`).
 */
function setupRow(events: StickyInput["events"], paid: boolean): string | null {
  if (!events.some((e) => e.type === "run.setup.started")) return null;
  const done = [...events].reverse().find((e) => e.type === "run.setup.finished");
  const facts = events.find((e) => e.type === "setup.finished" && e.data.for === undefined);
  const results = Array.isArray(facts?.data.results) ? facts.data.results.map(String) : [];
  const state = !done ? "running" : done.data.ok === false ? "failed" : "passed";
  const seconds = typeof done?.data.seconds === "number" ? ` in ${done.data.seconds} s` : "";
  const what = !done
    ? "—"
    : done.data.ok === false
      ? `FAIL${seconds}`
      : `ok${seconds}${results.length ? `: ${results.map((r) => codeSpan(r.slice(0, 60))).join(", ")} for every step` : ""}`;
  return `| — | setup | ${STATE_MARK[state] ?? ""} ${state} | ${what} |${paid ? " — |" : ""}`;
}

export function renderSticky(input: StickyInput): string {
  const { run, steps } = input;
  const usage = runUsage(input.events);
  const paid = usage.total !== null;
  const lines: string[] = [
    `### forgechain · ${run.chain} chain · ${STATE_MARK[run.state] ?? ""} ${run.state}`,
    "",
    `Run \`${run.id}\`${run.branch ? ` · branch \`${run.branch}\`` : ""}${run.baseSha ? ` · base \`${run.baseSha.slice(0, 12)}\`` : ""}`,
    ...branchNotes(run),
    "",
    `| step | role | state | verdict |${paid ? " cost · tokens |" : ""}`,
    `|---|---|---|---|${paid ? "---|" : ""}`,
  ];
  const setup = setupRow(input.events, paid);
  if (setup) lines.push(setup);
  for (const s of steps) {
    const verdict = s.decision
      ? `${s.decision.verdict}${s.decision.overridden ? " (engine override)" : ""}`
      : "—";
    const used = usage.steps.get(s.index);
    lines.push(
      `| ${s.index + 1} | ${s.role} | ${STATE_MARK[s.state] ?? ""} ${s.state}${s.attempt > 1 ? ` (attempt ${s.attempt})` : ""} | ${verdict} |${paid ? ` ${used ? formatUsage(used) : "—"} |` : ""}`,
    );
  }
  if (usage.total) {
    const so = ACTIVE.has(run.state) ? " so far" : "";
    lines.push("", `**Cost${so}:** ${formatUsage(usage.total)}`);
  }
  const network = networkNote(input.events);
  if (network) lines.push("", network);
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
  // Only while the run is unfinished: a run picked up again later ends with its own verdict.
  const failure = ACTIVE.has(run.state) ? lastFailure(input.events) : null;
  if (failure) {
    lines.push("", `**forgechain stopped working on this run:** ${failure.what}.`);
    if (failure.detail) lines.push(fence(failure.detail, 1500));
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
 * The network the run's boxes had (R4.6): the host network named plainly when the deployment
 * chose it; through the egress proxy, the refused hosts (text from a box: code spans only).
 */
function networkNote(events: readonly RunEvent[]): string | null {
  const { mode, denied } = egressSummary(events);
  if (!mode) return null;
  if (mode.mode === "host") {
    return `**Network:** ⚠️ ${hostNetworkSentence(mode.reason, (s) => `\`${s}\``)}.`;
  }
  const head = "**Network:** each box reached only what its phase allows (egress proxy)";
  if (denied.length === 0) return `${head}; nothing was refused.`;
  const groups = groupDenials(denied);
  const shown = groups
    .slice(0, 5)
    .map((g) => `${codeSpan(g.target)} (${g.phase.replace(/[^a-z0-9_-]/gi, "?")})`);
  const more = groups.length > 5 ? ` and ${groups.length - 5} more` : "";
  const n = denied.length;
  return `${head}; ${n} connection${n === 1 ? "" : "s"} refused: ${shown.join(", ")}${more}.`;
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

/** What the run's branch plan says about where it pushes (branch-plan.ts). */
function branchNotes(run: RunRecord): string[] {
  const plan = run.chain === "change" ? branchPlanOf(run) : null;
  if (!plan) return [];
  const notes: string[] = [];
  for (const s of plan.skipped ?? []) {
    notes.push(
      `\`${s.branch}\` has commits forgechain did not push (its head is \`${s.head.slice(0, 12)}\`): they are left as they are, and this run pushes to \`${plan.name}\` instead.`,
    );
  }
  if (plan.updates) {
    notes.push(
      `This run updates \`${plan.name}\` (and its pull request), which run \`${plan.updates.runId}\` pushed; a commit pushed there meanwhile by anyone else stops the push instead of being replaced.`,
    );
  }
  return notes.length > 0 ? ["", ...notes] : [];
}

/** The run ended because the remote refused its push: the branch moved under it. */
function pushRefused(events: readonly RunEvent[]): boolean {
  const finished = [...events].reverse().find((e) => e.type === "run.finished");
  const reasons = (finished?.data.reasons as unknown[] | undefined)?.map(String) ?? [];
  return reasons.some(
    (r) => r.includes("git push failed") && /stale info|non-fast-forward|fetch first/.test(r),
  );
}

/** The newest failure journaled for the run (job-failure.ts), when it has one. */
function lastFailure(
  events: readonly RunEvent[],
): { what: string; detail: string; todo: string } | null {
  const e = [...events].reverse().find((x) => x.type === FAILURE_EVENT);
  if (!e) return null;
  const text = (k: string) => (typeof e.data[k] === "string" ? (e.data[k] as string) : "");
  return { what: text("what"), detail: text("detail"), todo: text("todo") };
}

function nextAction(input: StickyInput): string {
  const { run } = input;
  const id = run.id;
  const failure = lastFailure(input.events);
  if (failure?.todo && (run.state === "queued" || run.state === "running")) return failure.todo;
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
      if (pushRefused(input.events))
        return `the branch changed on GitHub while the run worked, so nothing was replaced; start again with \`/forge run\` — a new run updates the branch if its head is one forgechain pushed, and otherwise pushes to a new suffixed branch.`;
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
