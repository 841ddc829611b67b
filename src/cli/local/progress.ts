// Live progress on the terminal: one line per phase (the run's setup, then each step) — state,
// elapsed, last tool call — redrawn in place on a TTY, printed as plain lines otherwise (CI logs,
// pipes).
//
// Redrawing in place only works while the cursor is where the last drawing left it and every
// row took exactly one terminal line. So: nothing is drawn before the first change (the run's
// header comes first), other output goes through `note` (the table is cleared, the text
// written, the table drawn again below it), and every row is clipped to the terminal's width
// at a word boundary — a wrapped row moved the table down one line per redraw, leaving stale
// copies above it.
import type { ChainObserver, StepProgress } from "../../chain/ports.js";
import type { RunEvent, StepRecord } from "../../chain/types.js";
import type { Role } from "../../roles/role-names.js";
import { clipWords } from "../../runner/tool-error.js";

export interface ProgressRow {
  name: string;
  state: string;
  startedAt: number | null;
  endedAt: number | null;
  last: string;
}

export interface ProgressView extends ChainObserver {
  events(runId: string, events: RunEvent[]): void;
  progress(runId: string, progress: StepProgress): void;
  /** Text that is not the table (the run's header, "cancelling…"): printed above the table. */
  note(text: string): void;
  /** The steps as the journal has them (a resumed run): finished ones show their verdict. */
  seed(steps: ReadonlyArray<Pick<StepRecord, "role" | "state" | "decision">>): void;
  stop(): void;
}

type Out = { write(s: string): unknown; isTTY?: boolean; columns?: number };

const CLEAR_BELOW = "\x1b[J";
const up = (n: number) => (n > 0 ? `\x1b[${n}A` : "");

/** One row as a line of at most `width` characters. */
export function formatRow(r: ProgressRow, width: number, now: number): string {
  const t =
    r.startedAt === null ? "" : `${(((r.endedAt ?? now) - r.startedAt) / 1000).toFixed(1)}s`;
  const head = `  ${r.name.padEnd(10)} ${r.state.padEnd(8)} ${t.padStart(7)}`;
  if (head.length >= width) return head.slice(0, width).trimEnd();
  const room = width - head.length - 2;
  const last = r.last && room >= 8 ? `  ${clipWords(r.last, room)}` : "";
  return `${head}${last}`.trimEnd();
}

export function progressView(
  out: Out,
  roles: readonly Role[],
  now: () => number = Date.now,
): ProgressView {
  const row = (name: string): ProgressRow => ({
    name,
    state: "queued",
    startedAt: null,
    endedAt: null,
    last: "",
  });
  const steps = roles.map(row);
  let setup: ProgressRow | null = null;
  const rows = () => (setup ? [setup, ...steps] : steps);
  const tty = Boolean(out.isTTY);
  let drawn = 0;
  let started = false;
  // One column less than the terminal: a line that fills the last column wraps on some.
  const width = () => Math.max(20, (out.columns ?? 80) - 1);
  const table = () =>
    rows()
      .map((r) => `${formatRow(r, width(), now())}\n`)
      .join("");
  const draw = (before = "") => {
    if (!tty || (!started && before === "")) return;
    // One write: up to the table's first line, clear it and everything below, write anew.
    out.write(`${up(drawn)}\r${CLEAR_BELOW}${before}${started ? table() : ""}`);
    drawn = started ? rows().length : 0;
  };
  const changed = (r: ProgressRow, note?: string) => {
    started = true;
    if (tty) draw();
    else out.write(`${formatRow(r, 200, now())}${note ? ` — ${note}` : ""}\n`);
  };
  const timer = tty ? setInterval(() => draw(), 500) : null;
  timer?.unref();
  const stepOf = (e: RunEvent) =>
    steps[Number(e.data.index ?? -1)] ?? steps.find((r) => r.name === e.data.role);

  function stepEvent(e: RunEvent, r: ProgressRow): void {
    if (e.type === "step.started") {
      Object.assign(r, { state: "running", startedAt: now(), endedAt: null, last: "" });
      changed(r, `attempt ${String(e.data.attempt ?? 1)}`);
    } else if (e.type === "step.finished") {
      const verdict = (e.data.decision as { verdict?: string } | undefined)?.verdict;
      r.state = e.data.cancelled ? "cancelled" : (verdict ?? String(e.data.verdict ?? "FAIL"));
      r.endedAt = now();
      changed(r);
    } else if (e.type === "step.blocked" || e.type === "run.paused") {
      if (r.state === "paused") return;
      r.state = "paused";
      r.endedAt = now();
      changed(r, "waiting for an answer");
    } else if (e.type === "step.interrupted") {
      r.state = "queued";
      r.endedAt = now();
      changed(r, `interrupted: ${String(e.data.reason ?? "")}`);
    }
  }

  function setupEvent(e: RunEvent): void {
    setup ??= row("setup");
    if (e.type === "run.setup.started") {
      Object.assign(setup, { state: "running", startedAt: now(), endedAt: null });
    } else {
      setup.state = e.data.ok === false ? "FAIL" : "ok";
      setup.endedAt = now();
      const reasons = Array.isArray(e.data.reasons) ? e.data.reasons.map(String) : [];
      setup.last = reasons.join("; ");
    }
    changed(setup);
  }

  return {
    note(text) {
      const line = text.endsWith("\n") ? text : `${text}\n`;
      if (tty) draw(line);
      else out.write(line);
    },
    seed(records) {
      records.forEach((rec, i) => {
        const r = steps[i];
        if (r && rec.role === r.name && rec.state !== "queued") {
          r.state = rec.decision?.verdict ?? rec.state;
        }
      });
    },
    events(_runId, events) {
      for (const e of events) {
        if (e.type === "run.setup.started" || e.type === "run.setup.finished") setupEvent(e);
        else {
          const r = stepOf(e);
          if (r) stepEvent(e, r);
        }
      }
    },
    progress(_runId: string, p: StepProgress) {
      const r = steps.find((x) => x.name === p.role && x.state === "running");
      if (!r) return;
      if (p.refusal) {
        r.last = `refused: ${p.refusal}`;
        changed(r);
      } else if (p.lastTool) {
        r.last = p.lastTool;
        if (tty && started) draw();
      }
    },
    stop() {
      if (timer) clearInterval(timer);
      draw();
    },
  };
}
