// R9.3: `.forge/run-output-<run-id>.md` — what every role said, the verdicts, the diff stat,
// the builder's own account marked as a claim (nothing verifies it, R5.2), advisory warnings.
// Everything passes through `redact` before it is written: this file is committed and pushed.
import type { RunRecord, StepRecord } from "../chain/types.js";
import {
  codeSpan,
  EGRESS_PHASES,
  type EgressDenial,
  groupDenials,
  verifyInputsNotice,
} from "../policy/index.js";
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
  /**
   * The network the boxes had (R4.6): the mode, each phase's allowlist and the refused
   * connections (`egress.denied`); finish-run.ts passes it. None: no section.
   */
  network?: RunNetwork;
  /** What each step's agent cost, one entry per attempt (step-usage.ts); none: not shown. */
  usage?: UsageSource[];
  redact: (text: string) => Promise<string>;
}

export interface RunNetwork {
  mode: "proxy" | "host";
  /** Why, when the runner says (the `egress.mode` fact's reason). */
  reason?: string;
  /** Per phase (agent, setup, controls, verify), the host entries its boxes could reach. */
  allowed: Record<string, string[]>;
  /**
   * Where the model credential was: outside every box (the door added it), in the agent's box
   * (a subscription login, or the host network), or there was none.
   */
  credential?: "outside" | "in-box" | "none";
  denied: Array<Pick<EgressDenial, "phase" | "role" | "host" | "port" | "reason">>;
}

const CREDENTIAL_SENTENCE: Record<NonNullable<RunNetwork["credential"]>, string> = {
  outside:
    "The model credential stayed outside every box: agents held a placeholder, and the door added the real one to requests for the model endpoint only.",
  "in-box":
    "⚠️ The model credential was in the agents' boxes (a subscription login cannot be added from outside, or the boxes shared the host network): a tool call or the project's code run by the builder could read it.",
  none: "No model credential was configured.",
};

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
  if (input.network) lines.push(...networkSection(input.network));
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

const MAX_REFUSED = 30;

/** What each phase's boxes could reach, and what they were refused. */
function networkSection(network: RunNetwork): string[] {
  const lines = ["## Network", ""];
  const why = network.reason ? ` (${network.reason.replace(/\s+/g, " ").slice(0, 300)})` : "";
  const credential = network.credential ? [CREDENTIAL_SENTENCE[network.credential], ""] : [];
  if (network.mode === "host") {
    lines.push(
      `> ⚠️ The boxes shared the host network${why || " (`FORGE_EGRESS=host`)"}: nothing limited what they could reach. The deployment chose this; a repository cannot.`,
      "",
      ...credential,
    );
    return lines;
  }
  lines.push(
    `Every box had a network of its own with one door${why}: a proxy that let through only the hosts its phase allows, resolved the names itself, and refused private and loopback addresses not named exactly. A refused connection does not fail a step by itself.`,
    "",
    ...credential,
    "| phase | could reach | refused |",
    "|---|---|---|",
  );
  const groups = groupDenials(network.denied);
  const phases = [
    ...EGRESS_PHASES,
    ...Object.keys(network.allowed).filter(
      (p) => !(EGRESS_PHASES as readonly string[]).includes(p),
    ),
  ];
  for (const phase of phases) {
    const allowed = network.allowed[phase] ?? [];
    const refused = groups.filter((g) => g.phase === phase);
    const name = phase.replace(/[^a-z0-9_-]/gi, "?").slice(0, 20);
    if (allowed.length === 0 && refused.length === 0 && !(phase in network.allowed)) continue;
    const count = refused.reduce((n, g) => n + g.count, 0);
    lines.push(
      `| ${name} | ${allowed.length ? allowed.map(codeSpan).join(", ") : "nothing"} | ${count || "—"} |`,
    );
  }
  if (groups.length > 0) {
    lines.push("", "Refused connections:", "");
    for (const g of groups.slice(0, MAX_REFUSED)) {
      const who = (g.role ? `${g.phase}, ${g.role}` : g.phase).replace(/[^a-z0-9_, -]/gi, "?");
      const times = g.count > 1 ? ` (${g.count} times)` : "";
      lines.push(`- ${codeSpan(g.target)} — ${who}: ${codeSpan(g.reasons.join("; "))}${times}`);
    }
    if (groups.length > MAX_REFUSED) lines.push(`- … and ${groups.length - MAX_REFUSED} more`);
  }
  lines.push("");
  return lines;
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
