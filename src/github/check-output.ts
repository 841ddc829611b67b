/**
 * What a role's check run shows (R9.1): a title, a summary, the findings as a table, and the
 * findings that name a file and line as annotations. Finding text comes from an agent and is
 * untrusted: it is put into table cells with markup that could break the table neutralised.
 */
import type { Decision } from "../roles/decision.js";
import type { Role } from "../roles/role-names.js";
import type { Finding } from "./port.js";
import { CHECK_TEXT_MAX_BYTES, truncateUtf8 } from "./text-limit.js";

/** GitHub takes at most 50 annotations per request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** Our own cap: the table has every finding; annotations beyond this are only in the table. */
export const MAX_ANNOTATIONS = 200;

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  message: string;
  title: string;
}

const LEVEL: Record<Finding["severity"], Annotation["annotation_level"]> = {
  blocking: "failure",
  major: "warning",
  minor: "notice",
};

/** `path:line` or `path:start-end` → an annotation location; anything else → null. */
export function parseLocation(
  location: string,
): { path: string; startLine: number; endLine: number } | null {
  const m = /^([^\s:]+):([0-9]{1,9})(?:-([0-9]{1,9}))?$/.exec(location.trim());
  if (!m) return null;
  const path = (m[1] ?? "").replace(/^\.\//, "");
  const startLine = Number(m[2]);
  const endLine = m[3] === undefined ? startLine : Number(m[3]);
  // A repository-relative path only: nothing absolute, no `..` escaping the tree.
  if (path === "" || path.startsWith("/") || path.split("/").some((s) => s === ".." || s === "")) {
    return null;
  }
  if (startLine < 1 || endLine < startLine) return null;
  return { path, startLine, endLine };
}

export function annotationsFor(findings: readonly Finding[]): Annotation[] {
  const out: Annotation[] = [];
  for (const finding of findings) {
    const where = parseLocation(finding.location);
    if (!where) continue;
    out.push({
      path: where.path,
      start_line: where.startLine,
      end_line: where.endLine,
      annotation_level: LEVEL[finding.severity] ?? "warning",
      // GitHub's limit for message is 64 KB; descriptions are far shorter by schema.
      message: truncateUtf8(finding.description, 60_000, "message"),
      title: finding.severity,
    });
    if (out.length >= MAX_ANNOTATIONS) break;
  }
  return out;
}

export function checkTitle(
  role: Role,
  status: "in_progress" | "completed",
  decision: Decision | null | undefined,
  cancelled: boolean,
): string {
  if (status === "in_progress") return `forge/${role}: running`;
  if (cancelled) return `forge/${role}: cancelled`;
  if (!decision) return `forge/${role}: FAIL (no valid output)`;
  return `forge/${role}: ${decision.verdict}${decision.overridden ? " (overridden by the engine)" : ""}`;
}

export function checkSummary(
  summary: string,
  decision: Decision | null | undefined,
  findings: readonly Finding[],
): string {
  const parts: string[] = [];
  if (decision) {
    parts.push(
      `**Verdict: ${decision.verdict}**${decision.overridden ? " — overridden by the engine" : ""}`,
    );
    if (decision.reasons.length > 0) {
      parts.push(decision.reasons.map((r) => `- ${oneLine(r)}`).join("\n"));
    }
  }
  if (findings.length > 0) {
    const count = (s: Finding["severity"]) => findings.filter((f) => f.severity === s).length;
    parts.push(
      `Findings: ${count("blocking")} blocking, ${count("major")} major, ${count("minor")} minor (table below).`,
    );
  }
  parts.push(summary);
  return truncateUtf8(parts.join("\n\n"), CHECK_TEXT_MAX_BYTES, "summary");
}

export function findingsTable(findings: readonly Finding[]): string | undefined {
  if (findings.length === 0) return undefined;
  const rows = findings.map(
    (f) => `| ${cell(f.severity)} | ${cell(f.location)} | ${cell(f.description)} |`,
  );
  const table = ["| Severity | Location | Description |", "| --- | --- | --- |", ...rows].join(
    "\n",
  );
  return truncateUtf8(table, CHECK_TEXT_MAX_BYTES, "findings table");
}

function cell(text: string): string {
  // One table cell: no line breaks, no unescaped pipes, no HTML.
  return oneLine(text).replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/</g, "&lt;");
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}
