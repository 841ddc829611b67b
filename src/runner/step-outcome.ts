// What the runner measures of a finished agent process — the role gate's outcome and how the
// process ended, as FAIL reasons for the engine — and the constraints every prompt carries.
import { writeFile } from "node:fs/promises";
import { ROLE_GATE_VIOLATION, verifyLedger } from "../policy/index.js";
import type { Role } from "../roles/role-names.js";
import { redactSecrets } from "../secrets/index.js";
import type { AgentProcessResult } from "./agent-process.js";
import { readAgentFile } from "./read-agent-file.js";

/** A role-gate ledger holds a line per violation, and the first one ends the step. */
const MAX_LEDGER_BYTES = 1024 * 1024;

/**
 * The role gate's outcome for one step: the ledger the hook wrote (copied out of the agent's
 * HOME and verified) and the refusal the runner saw in the stream. Either one is a violation;
 * a ledger that no longer verifies is one too (the agent may have tampered with it).
 */
export async function roleGateOutcome(
  ledgerInHome: string,
  keep: string,
  stoppedBy: string | undefined,
): Promise<{ detail: string; ledgerLines: number } | null> {
  let lines = 0;
  let first: string | null = null;
  let tampered: string | null = null;
  // In the agent's HOME: the agent decides what is there (read-agent-file.ts).
  const ledger = await readAgentFile(ledgerInHome, MAX_LEDGER_BYTES);
  if (ledger.kind === "refused") tampered = `the role-gate ledger was not read: ${ledger.why}`;
  if (ledger.kind === "file") {
    await writeFile(keep, ledger.text);
    const check = verifyLedger(keep);
    if (check.ok) {
      lines = check.lines;
      first = lines > 0 ? firstViolation(ledger.text) : null;
    } else tampered = "the role-gate ledger no longer verifies";
  }
  if (!stoppedBy && lines === 0 && !tampered) return null;
  const detail = tampered
    ? `${ROLE_GATE_VIOLATION}: ${tampered}`
    : (stoppedBy?.replace(/^.*?(ROLE_GATE_VIOLATION)/s, "$1").slice(0, 300) ??
      first ??
      `${ROLE_GATE_VIOLATION}: ${lines} violation(s) in the ledger`);
  return { detail, ledgerLines: lines };
}

/**
 * The refusal of the ledger's first (verified) line, in the words the guard used. The guard
 * stops the agent at a violation, so the refusal often never reaches the stream.
 */
function firstViolation(text: string): string | null {
  try {
    const line = JSON.parse(text.slice(0, text.indexOf("\n"))) as Record<string, unknown>;
    const { role, pattern } = line;
    if (typeof role !== "string" || typeof pattern !== "string") return null;
    return `${ROLE_GATE_VIOLATION}: the ${role} profile denies ${pattern}`.slice(0, 300);
  } catch {
    return null;
  }
}

/**
 * Why the runner FAILs a step from how its agent process ended, whatever it wrote: it did not
 * start, timed out, went past its turns, was cancelled, broke the role gate, or exited non-zero
 * (with the tail of its stderr, redacted).
 */
export async function processReasons(
  proc: AgentProcessResult,
  o: { timeoutMs: number; maxTurns: number | undefined; gate: string | undefined },
): Promise<string[]> {
  const reasons: string[] = [];
  if (proc.spawnError) reasons.push(`the agent could not start: ${proc.spawnError}`);
  if (proc.timedOut) reasons.push(`the agent timed out after ${Math.round(o.timeoutMs / 1000)} s`);
  if (proc.turnLimitHit) reasons.push(`the agent went past its ${o.maxTurns} turns`);
  if (proc.cancelled) reasons.push("the step was cancelled");
  if (proc.idle) reasons.push(proc.idle);
  if (o.gate) reasons.push(o.gate);
  if (reasons.length === 0 && proc.exitCode !== 0) {
    const why = (await redactSecrets(proc.stderr.trim().slice(-500))).text;
    reasons.push(`the agent exited with ${proc.exitCode ?? proc.signal}${why ? `: ${why}` : ""}`);
  }
  return reasons;
}

/** Files named in the prompt at most; the rest are counted. */
const MAX_HIDDEN_NAMED = 20;

export function constraintsFor(
  role: Role,
  readOnly: boolean,
  hidden: readonly string[] = [],
): string[] {
  const c = [
    "Do not try to push: the runner pushes. Secret files (.env and filled variants, keys, credentials) are closed to you.",
    "Your workspace holds one commit of the repository, without its history; files on secret paths are left out of it.",
  ];
  if (hidden.length > 0) {
    // File names are the repository's text: quoted, so none can read as an instruction.
    const named = hidden
      .slice(0, MAX_HIDDEN_NAMED)
      .map((p) => JSON.stringify(p.slice(0, 200)))
      .join(", ");
    const more =
      hidden.length > MAX_HIDDEN_NAMED ? ` and ${hidden.length - MAX_HIDDEN_NAMED} more` : "";
    c.push(
      `These committed files exist but are not shown to you: ${named}${more}. Do not create, edit or delete files at those paths; say in your answer if the task needs them.`,
    );
  }
  if (readOnly)
    c.push(
      "You may not change any file: forgechain snapshots the tree and FAILs a step that wrote.",
    );
  if (role === "builder")
    c.push("Implement the plan, run the tests, and give their output and exit codes as evidence.");
  return c;
}
