// Live progress on the terminal: one line per step — role, state, elapsed, last tool call —
// redrawn in place on a TTY, printed as plain lines otherwise (CI logs, pipes).
import type { ChainObserver, StepProgress } from "../../chain/ports.js";
import type { RunEvent } from "../../chain/types.js";
import type { Role } from "../../roles/role-names.js";

interface Row {
  role: Role;
  state: string;
  startedAt: number | null;
  endedAt: number | null;
  last: string;
}

export interface ProgressView extends ChainObserver {
  stop(): void;
}

export function progressView(
  out: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean },
  roles: readonly Role[],
  now: () => number = Date.now,
): ProgressView {
  const rows: Row[] = roles.map((role) => ({
    role,
    state: "queued",
    startedAt: null,
    endedAt: null,
    last: "",
  }));
  const tty = Boolean((out as { isTTY?: boolean }).isTTY);
  let drawn = 0;
  const fmt = (r: Row) => {
    const t =
      r.startedAt === null ? "" : `${(((r.endedAt ?? now()) - r.startedAt) / 1000).toFixed(1)}s`;
    return `  ${r.role.padEnd(10)} ${r.state.padEnd(8)} ${t.padStart(7)}  ${r.last}`.trimEnd();
  };
  const draw = () => {
    if (!tty) return;
    if (drawn > 0) out.write(`\x1b[${drawn}A`);
    for (const r of rows) out.write(`\x1b[2K${fmt(r).slice(0, 150)}\n`);
    drawn = rows.length;
  };
  const line = (r: Row, note?: string) => {
    if (tty) draw();
    else out.write(`${fmt(r)}${note ? ` — ${note}` : ""}\n`);
  };
  const timer = tty ? setInterval(draw, 500) : null;
  timer?.unref();
  draw();
  return {
    events(_runId: string, events: RunEvent[]) {
      for (const e of events) {
        const row = rows[Number(e.data.index ?? -1)] ?? rows.find((r) => r.role === e.data.role);
        if (!row) continue;
        if (e.type === "step.started") {
          row.state = "running";
          row.startedAt = now();
          row.endedAt = null;
          line(row, `attempt ${String(e.data.attempt ?? 1)}`);
        } else if (
          e.type === "step.finished" ||
          e.type === "step.failed" ||
          e.type === "step.passed"
        ) {
          const verdict = (e.data.decision as { verdict?: string } | undefined)?.verdict;
          row.state = verdict ?? (e.type === "step.passed" ? "PASS" : "FAIL");
          row.endedAt = now();
          line(row);
        } else if (e.type === "step.blocked" || e.type === "run.paused") {
          row.state = "paused";
          row.endedAt = now();
          line(row, "waiting for an answer");
        }
      }
    },
    progress(_runId: string, p: StepProgress) {
      const row = rows.find((r) => r.role === p.role);
      if (!row) return;
      if (p.refusal) {
        row.last = `refused: ${p.refusal.replace(/\s+/g, " ").slice(0, 90)}`;
        line(row);
      } else if (p.lastTool) {
        row.last = p.lastTool;
        if (tty) draw();
      }
    },
    stop() {
      if (timer) clearInterval(timer);
      draw();
    },
  };
}
