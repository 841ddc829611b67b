/**
 * The merge gate `forge/gate` (R9.4), decided from the journal only: success when the run
 * passed, every role PASSed, the verdicts are about this head, and no protected path (R8.4)
 * is touched — or it is, and a sealed `/forge approve` for exactly this head and these
 * verdicts was accepted. Anything unknown (no head, no diff) closes the gate.
 */
import type { RunEvent, RunRecord, StepRecord } from "../chain/types.js";
import { DEFAULT_PROTECTED_PATHS, touchesProtected } from "../policy/index.js";
import { verdictsDigest } from "../seal/index.js";
import { frozenConfig } from "./app-runner.js";

export const APPROVED_EVENT = "gate.approved";

export interface GateInput {
  run: RunRecord;
  steps: StepRecord[];
  events: RunEvent[];
  /** The commit the gate is set on. */
  headSha: string;
  /** Files the change touches (both sides of a rename); null when they could not be read. */
  changedFiles: string[] | null;
}

export interface GateDecision {
  conclusion: "success" | "failure";
  title: string;
  summary: string;
  /** Protected files the change touches (empty when none or unknown). */
  protectedFiles: string[];
  /** True when the only thing keeping the gate closed is a missing approval. */
  awaitingApproval: boolean;
  verdictsDigest: string;
}

export function runVerdictsDigest(steps: readonly StepRecord[]): string {
  return verdictsDigest(
    steps.map((s) => ({ role: s.role, verdict: s.decision?.verdict ?? "FAIL" })),
  );
}

export function protectedPatterns(run: RunRecord): string[] {
  const config = frozenConfig(run);
  const patterns = config?.protectedPaths?.map((p) => p.pattern) ?? [];
  // A repository can only add (R8.4); the deployment's list is there whatever the config says.
  return [...new Set([...DEFAULT_PROTECTED_PATHS, ...patterns])];
}

/** The accepted approval for this head and these verdicts, if any. */
export function approvalFor(
  events: readonly RunEvent[],
  headSha: string,
  digest: string,
): { actor: string } | null {
  for (const e of events) {
    if (e.type !== APPROVED_EVENT) continue;
    const d = e.data as { headSha?: unknown; verdictsDigest?: unknown; actor?: unknown };
    if (d.headSha === headSha && d.verdictsDigest === digest) {
      return { actor: typeof d.actor === "string" ? d.actor : "?" };
    }
  }
  return null;
}

export function evaluateGate(input: GateInput): GateDecision {
  const { run, steps } = input;
  const digest = runVerdictsDigest(steps);
  const closed = (title: string, reasons: string[], protectedFiles: string[] = []) => ({
    conclusion: "failure" as const,
    title,
    summary: reasons.map((r) => `- ${r}`).join("\n"),
    protectedFiles,
    awaitingApproval: false,
    verdictsDigest: digest,
  });
  const notPassed = steps.filter((s) => s.state !== "passed" || s.decision?.verdict !== "PASS");
  if (run.state !== "passed" || notPassed.length > 0 || steps.length === 0) {
    const reasons = notPassed.map(
      (s) =>
        `${s.role}: ${s.decision?.verdict ?? (s.state === "queued" ? "not run" : s.state)}${
          s.decision?.reasons[0] ? ` — ${s.decision.reasons[0].slice(0, 200)}` : ""
        }`,
    );
    return closed(`Gate closed: the chain ${run.state === "passed" ? "did not pass" : run.state}`, [
      `run ${run.id} is ${run.state}`,
      ...reasons,
    ]);
  }
  if (input.changedFiles === null) {
    return closed("Gate closed: the changed files are unknown", [
      "the diff of this head could not be read, so protected paths cannot be ruled out",
    ]);
  }
  const touch = touchesProtected(input.changedFiles, protectedPatterns(run));
  if (touch.touched) {
    const approval = approvalFor(input.events, input.headSha, digest);
    const files = touch.files.slice(0, 50);
    if (!approval) {
      return {
        ...closed(
          "Gate closed: protected paths need an approval",
          [
            `every role PASSed, but the change touches protected paths: ${files.map((f) => `\`${f}\``).join(", ")}`,
            `a trusted maintainer can release it with \`/forge approve ${run.id}\` (sealed, for head ${input.headSha.slice(0, 12)} only)`,
          ],
          touch.files,
        ),
        awaitingApproval: true,
      };
    }
    return {
      conclusion: "success",
      title: "Gate open (protected paths approved)",
      summary: `- every role PASSed on ${input.headSha.slice(0, 12)}\n- protected paths ${files.map((f) => `\`${f}\``).join(", ")} approved by @${approval.actor} (sealed)`,
      protectedFiles: touch.files,
      awaitingApproval: false,
      verdictsDigest: digest,
    };
  }
  return {
    conclusion: "success",
    title: "Gate open",
    summary: `- every role PASSed on ${input.headSha.slice(0, 12)}\n- no protected path is touched`,
    protectedFiles: [],
    awaitingApproval: false,
    verdictsDigest: digest,
  };
}
