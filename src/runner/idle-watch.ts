// The idle limit of an agent: how long it may go without progress while it waits for its
// model. Measured on claude 2.1.332 with its endpoint down: it prints its init line, then one
// `{"type":"system","subtype":"api_retry"}` line per retry with delays doubling up to ~40 s,
// ten times — minutes in which `forge run` showed "architect running" and nothing else. Those
// retry lines are therefore not progress; they are remembered to say why in the reason.
//
// Time inside a tool call does not count: a test suite may print nothing for minutes, and
// Claude Code's Bash tool ends a command itself (2 min by default, 10 at most). The step's own
// timeout still bounds the whole step.

/** Five minutes: longer than one long model answer, far shorter than a step's timeout. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

export interface IdleWatch {
  /** A stream line that is not JSON (or not parsable): counts as progress. */
  progress(): void;
  /** A parsed stream-json line. */
  line(msg: unknown): void;
  stop(): void;
}

interface RetryNotice {
  count: number;
  error: string;
  status: string;
}

/**
 * Calls `onIdle` once, with the reason in words, when no progress was seen for `limitMs` while
 * no tool call was open. `limitMs` 0 (or less) watches nothing.
 */
export function idleWatch(
  limitMs: number,
  onIdle: (reason: string) => void,
  now: () => number = Date.now,
): IdleWatch {
  let last = now();
  let fired = false;
  const open = new Set<string>();
  const retry: RetryNotice = { count: 0, error: "", status: "" };
  const progress = () => {
    last = now();
  };
  const check = () => {
    if (fired || open.size > 0 || now() - last < limitMs) return;
    fired = true;
    if (timer) clearInterval(timer);
    onIdle(idleReason(limitMs, retry));
  };
  // A coarse tick is enough: the limit is minutes in use, seconds in tests.
  const timer = limitMs > 0 ? setInterval(check, Math.min(1000, Math.max(20, limitMs / 20))) : null;
  timer?.unref();
  return {
    progress,
    line(msg) {
      const m = (msg ?? {}) as {
        type?: unknown;
        subtype?: unknown;
        error?: unknown;
        error_status?: unknown;
        message?: { content?: unknown };
      };
      if (m.type === "system" && m.subtype === "api_retry") {
        retry.count++;
        retry.error = typeof m.error === "string" ? m.error : "";
        retry.status = m.error_status == null ? "" : String(m.error_status);
        return;
      }
      progress();
      const content = Array.isArray(m.message?.content) ? m.message.content : [];
      for (const block of content as Array<Record<string, unknown>>) {
        if (m.type === "assistant" && block?.type === "tool_use" && typeof block.id === "string") {
          open.add(block.id);
        }
        if (m.type === "user" && block?.type === "tool_result") {
          open.delete(String(block.tool_use_id));
        }
      }
      // The final result ends every open call (an interrupted one never gets its result).
      if (m.type === "result") open.clear();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

function idleReason(limitMs: number, retry: RetryNotice): string {
  const seconds = limitMs % 1000 === 0 ? limitMs / 1000 : (limitMs / 1000).toFixed(1);
  const base = `the agent showed no progress for ${seconds} s while it waited for its model (the idle limit, FORGE_IDLE_TIMEOUT)`;
  if (retry.count === 0) return base;
  const what = [retry.error && `error ${retry.error}`, retry.status && `status ${retry.status}`]
    .filter(Boolean)
    .join(", ");
  return `${base}; the model endpoint failed ${retry.count} time(s)${what ? ` (last: ${what})` : ""}: check ANTHROPIC_BASE_URL and the credential`;
}
