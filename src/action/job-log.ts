// What the workflow's log shows of a job: the App's log lines (errors and warnings as workflow
// commands, so GitHub lists them on the run's page) and one collapsible group per step, opened
// when the engine journals the step's start and closed with its verdict.
import type { ChainObserver, Logger } from "../chain/ports.js";
import { workflowCommand } from "./workflow-io.js";

type Out = (text: string) => void;

/** The App's logger, as the job's log: errors and warnings as workflow commands. */
export function jobLogger(out: Out): Logger {
  const line = (level: string) => (a: unknown, b?: unknown) => {
    const msg = typeof a === "string" ? a : typeof b === "string" ? b : "";
    if (level === "error" || level === "warn")
      out(workflowCommand(level === "error" ? "error" : "warning", `forgechain: ${msg}`));
    else if (level === "info") out(`forgechain: ${msg}\n`);
  };
  return {
    debug: () => {},
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
  } as unknown as Logger;
}

const ENDS: Record<string, (data: Record<string, unknown>) => string> = {
  "step.finished": (d) => `${String(d.verdict ?? "finished")}`,
  "step.blocked": (d) => `waiting for an answer to ${String(d.requestId ?? "a question")}`,
  "step.interrupted": (d) => `interrupted: ${String(d.reason ?? "")}`.slice(0, 300),
};

/**
 * `::group::` per step. The Action drives one run at a time, so groups never interleave; a
 * group still open when the next starts is closed first (the log never nests them).
 */
export function stepGroups(out: Out): ChainObserver & { close(): void } {
  let open = false;
  const close = () => {
    if (open) out("::endgroup::\n");
    open = false;
  };
  return {
    events(_runId, events) {
      for (const e of events) {
        const role = String(e.data.role ?? "step");
        if (e.type === "step.started") {
          close();
          // Role and attempt are the engine's own values; no text from an issue gets here.
          out(`::group::forgechain: ${role} (attempt ${String(e.data.attempt ?? 1)})\n`);
          open = true;
        }
        const end = ENDS[e.type];
        if (end && open) {
          // One line: a reason spread over lines could start a workflow command of its own.
          out(`forgechain: ${role}: ${end(e.data).replace(/[\r\n]+/g, " ")}\n`);
          close();
        }
      }
    },
    close,
  };
}
