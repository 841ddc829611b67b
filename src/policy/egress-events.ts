/**
 * The journal's network facts, read back for `forge status`, the run output and the sticky
 * comment: `egress.mode` (once per run) and `egress.denied` (one per refused connection, each
 * stamped by the engine with its step's index, role and attempt when a step's box made it).
 * A host in a refusal is whatever a process in the box asked for — untrusted text — so it is
 * cut to one printable line here; each renderer still quotes it its own way.
 */
import { formatHostPort } from "./egress-entry.js";
import type { EgressMode } from "./egress-env.js";

export const EGRESS_MODE_EVENT = "egress.mode";
export const EGRESS_DENIED_EVENT = "egress.denied";

export const EGRESS_PHASES = ["agent", "setup", "controls", "verify"] as const;
export type EgressPhase = (typeof EGRESS_PHASES)[number];

export interface EgressDenial {
  phase: EgressPhase | string;
  role?: string;
  /** The step whose box made the connection; absent for the setup phase. */
  index?: number;
  host: string;
  port: number;
  reason: string;
}

export interface EgressSummary {
  /** Null when the run journaled no mode (it ran before egress control existed). */
  mode: { mode: EgressMode; reason?: string } | null;
  denied: EgressDenial[];
}

/** Refusals of one host:port in one phase (and step), counted. */
export interface DenialGroup {
  target: string;
  phase: string;
  role?: string;
  index?: number;
  reasons: string[];
  count: number;
}

type JournalEvent = { type: string; data: Record<string, unknown> };

export function egressSummary(events: readonly JournalEvent[]): EgressSummary {
  let mode: EgressSummary["mode"] = null;
  const denied: EgressDenial[] = [];
  for (const e of events) {
    if (e.type === EGRESS_MODE_EVENT) {
      const m = e.data.mode === "host" ? "host" : e.data.mode === "proxy" ? "proxy" : null;
      if (!m) continue;
      const reason = typeof e.data.reason === "string" ? oneLine(e.data.reason, 300) : "";
      mode = { mode: m, ...(reason ? { reason } : {}) };
    } else if (e.type === EGRESS_DENIED_EVENT) {
      const d = e.data;
      const port = Number(d.port);
      denied.push({
        phase: oneLine(String(d.phase ?? "?"), 20),
        ...(typeof d.role === "string" ? { role: oneLine(d.role, 40) } : {}),
        ...(Number.isInteger(d.index) ? { index: d.index as number } : {}),
        host: oneLine(String(d.host ?? "?"), 120),
        port: Number.isInteger(port) ? port : 0,
        reason: oneLine(String(d.reason ?? "refused"), 200),
      });
    }
  }
  return { mode, denied };
}

/** The refusals grouped by phase, step and host:port, in the order they first happened. */
export function groupDenials(denied: readonly EgressDenial[]): DenialGroup[] {
  const groups: DenialGroup[] = [];
  for (const d of denied) {
    const target = formatHostPort(d.host, d.port);
    const same = groups.find(
      (g) => g.target === target && g.phase === d.phase && g.index === d.index,
    );
    if (same) {
      same.count++;
      if (!same.reasons.includes(d.reason)) same.reasons.push(d.reason);
      continue;
    }
    groups.push({
      target,
      phase: d.phase,
      ...(d.role !== undefined ? { role: d.role } : {}),
      ...(d.index !== undefined ? { index: d.index } : {}),
      reasons: [d.reason],
      count: 1,
    });
  }
  return groups;
}

/** The words every renderer uses for a run that shared the host network. */
export const HOST_NETWORK_SENTENCE =
  "the boxes shared the host network (FORGE_EGRESS=host): nothing limited what they could reach";

/**
 * The same, for a run that shared it for another reason (a box kind without egress control):
 * the reason in place of the variable. `code` wraps it for Markdown.
 */
export function hostNetworkSentence(reason?: string, code = (s: string) => s): string {
  if (!reason) return HOST_NETWORK_SENTENCE.replace("FORGE_EGRESS=host", code("FORGE_EGRESS=host"));
  return `the boxes shared the host network (${reason}): nothing limited what they could reach`;
}

/**
 * One printable line: control and format characters (a terminal's escape sequences, bidi
 * overrides) become "?".
 */
function oneLine(text: string, max: number): string {
  const one = text.replace(/[\p{Cc}\p{Cf}]/gu, "?").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}
