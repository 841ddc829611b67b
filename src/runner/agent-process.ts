// Runs one agent process (already wrapped in its box), streaming Claude Code's stream-json
// so progress (last tool call, refusals) is live and the turn ceiling is enforced here:
// claude 2.1.332 has no --max-turns flag, so the runner counts assistant turns itself.
// It also ends an agent that stopped making progress (idle-watch.ts): with its model endpoint
// down, claude retries for minutes and a step looked like a hang.
import { spawnBoxed } from "../boxes/box-spawn.js";
import type { WrappedCommand } from "../boxes/types.js";
import { DEFAULT_IDLE_TIMEOUT_MS, idleWatch } from "./idle-watch.js";
import { classifyToolError, clipWords } from "./tool-error.js";

export { DEFAULT_IDLE_TIMEOUT_MS };

export interface AgentProcessResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  turnLimitHit: boolean;
  cancelled: boolean;
  spawnError?: string;
  turns: number;
  /** The refusal that ended the step, when stopOnRefusal matched one. */
  stoppedBy?: string;
  /** Why the agent was ended for showing no progress (the idle limit), in words. */
  idle?: string;
}

export interface AgentStartOptions {
  maxOutputBytes?: number;
  /** Descriptors the box gets as 3, 4, … (the guard server's listening socket). */
  inheritFds?: readonly number[];
  /** Called right after the spawn (the runner closes its copies of inherited descriptors). */
  onSpawn?: () => void;
  /** The agent takes its prompt on stdin (see `AgentHandle.send`). */
  stdin?: boolean;
}

export interface AgentWaitOptions {
  timeoutMs: number;
  /**
   * End the agent when it shows no progress for this long while it waits for its model (no
   * stream line but the endpoint's retry notices; time spent inside a tool call does not count:
   * the tool has its own limit). Default DEFAULT_IDLE_TIMEOUT_MS; 0 turns it off.
   */
  idleTimeoutMs?: number;
  maxTurns?: number;
  signal?: AbortSignal;
  onToolUse?: (summary: string) => void;
  onRefusal?: (text: string) => void;
  /** A refusal that ends the step at once (R7.3: a role-gate violation). */
  stopOnRefusal?: (text: string) => boolean;
}

export interface AgentProcessOptions extends AgentStartOptions, AgentWaitOptions {
  /** Written to the agent's stdin, which is then closed (the prompt, for claude). */
  input?: string;
}

/** A started agent: it may wait for its prompt on stdin (a warm start) until `send`. */
export interface AgentHandle {
  /** The process has ended (or never started). */
  readonly exited: boolean;
  /** Write `input` to stdin and close it. */
  send(input: string): void;
  /** Until the process ends; the timeout, turn ceiling and signal count from this call. */
  wait(opts: AgentWaitOptions): Promise<AgentProcessResult>;
  /** SIGKILL the whole box (box-spawn.ts). */
  kill(): void;
  /**
   * false: this process and its pipes no longer keep the runner's event loop alive (a warm
   * agent must not hold `forge run` open; its bwrap box dies with the runner). true: again.
   */
  hold(keep: boolean): void;
}

export function runAgentProcess(
  cmd: WrappedCommand,
  opts: AgentProcessOptions,
): Promise<AgentProcessResult> {
  if (opts.signal?.aborted) {
    // Cancelled before the box started: start nothing (a box killed in its first
    // milliseconds is the hardest one to kill, see box-spawn.ts).
    opts.onSpawn?.();
    return Promise.resolve(cancelledBeforeStart());
  }
  const handle = startAgentProcess(cmd, { ...opts, stdin: opts.input !== undefined });
  if (opts.input !== undefined) handle.send(opts.input);
  return handle.wait(opts);
}

/** The result of a step cancelled before its agent started: nothing ran. */
export function cancelledBeforeStart(): AgentProcessResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    turnLimitHit: false,
    cancelled: true,
    turns: 0,
  };
}

export function startAgentProcess(cmd: WrappedCommand, opts: AgentStartOptions): AgentHandle {
  const max = opts.maxOutputBytes ?? 32 * 1024 * 1024;
  let stdout = "";
  let stderr = "";
  let pending = "";
  let turns = 0;
  let timedOut = false;
  let turnLimitHit = false;
  let cancelled = false;
  let stoppedBy: string | undefined;
  let idleReason: string | undefined;
  let idle: ReturnType<typeof idleWatch> | undefined;
  let waiting: AgentWaitOptions | undefined;
  /** Tool calls by id, described: a failed one is named with its outcome. */
  const toolCalls = new Map<string, string>();
  /** Lines that came before `wait` (none expected before the prompt), inspected then. */
  const early: string[] = [];
  let ended: Partial<AgentProcessResult> | undefined;
  let onEnd: (() => void) | undefined;

  const boxed = spawnBoxed(cmd, { inheritFds: opts.inheritFds ?? [], stdin: opts.stdin ?? false });
  const child = boxed.child;
  opts.onSpawn?.();
  const kill = () => boxed.kill();
  // A prompt written to an agent that already died must not crash the runner (EPIPE).
  child.stdin?.on("error", () => {});

  child.stdout.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    if (stdout.length < max) stdout += text;
    pending += text;
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (waiting) inspectLine(line, waiting);
      else early.push(line);
      nl = pending.indexOf("\n");
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < max) stderr += chunk.toString("utf8");
  });

  function inspectLine(line: string, w: AgentWaitOptions): void {
    if (!line.startsWith("{")) {
      if (line.trim() !== "") idle?.progress();
      return;
    }
    let msg: { type?: string; message?: { content?: unknown } };
    try {
      msg = JSON.parse(line);
    } catch {
      idle?.progress();
      return;
    }
    idle?.line(msg);
    const content = Array.isArray(msg.message?.content) ? msg.message.content : [];
    if (msg.type === "assistant") {
      turns++;
      for (const block of content as Array<Record<string, unknown>>) {
        if (block.type !== "tool_use") continue;
        const described = describeToolUse(block);
        if (typeof block.id === "string") toolCalls.set(block.id, described);
        w.onToolUse?.(described);
      }
      if (w.maxTurns !== undefined && turns > w.maxTurns) {
        turnLimitHit = true;
        kill();
      }
    } else if (msg.type === "user") {
      for (const block of content as Array<Record<string, unknown>>) {
        if (block.type === "tool_result" && block.is_error === true) {
          const text = toolResultText(block.content);
          // Only a refusal is reported as one: a command that exited non-zero is work.
          const error = classifyToolError(text);
          if (error.kind === "refused") w.onRefusal?.(clipWords(text, 1000));
          else {
            const call = toolCalls.get(String(block.tool_use_id)) ?? "tool";
            const how =
              error.kind === "exit"
                ? `exit ${error.exitCode}`
                : `failed: ${clipWords(error.detail, 120)}`;
            w.onToolUse?.(`${call} → ${how}`);
          }
          if (stoppedBy === undefined && w.stopOnRefusal?.(text)) {
            stoppedBy = text.slice(0, 500);
            kill();
          }
        }
      }
    }
  }

  const end = (r: Partial<AgentProcessResult>) => {
    if (ended) return;
    ended = r;
    onEnd?.();
  };
  child.on("error", (error) => end({ spawnError: error.message }));
  child.on("close", (code, signal) => end({ exitCode: code, signal }));

  return {
    get exited() {
      return ended !== undefined;
    },
    send(input) {
      child.stdin?.end(input);
    },
    kill,
    hold(keep) {
      if (keep) child.ref();
      else child.unref();
      for (const stream of child.stdio) {
        const handle = stream as { ref?: () => void; unref?: () => void } | null;
        if (keep) handle?.ref?.();
        else handle?.unref?.();
      }
    },
    wait(w) {
      waiting = w;
      // The idle clock starts with the wait: a warm agent waits for its prompt until then.
      idle?.stop();
      idle = idleWatch(w.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, (reason) => {
        if (ended) return;
        idleReason = reason;
        kill();
      });
      for (const line of early.splice(0)) inspectLine(line, w);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          timedOut = true;
          kill();
        }, w.timeoutMs);
        const onAbort = () => {
          cancelled = true;
          kill();
        };
        if (w.signal?.aborted) onAbort();
        else w.signal?.addEventListener("abort", onAbort, { once: true });
        onEnd = () => {
          clearTimeout(timer);
          idle?.stop();
          w.signal?.removeEventListener("abort", onAbort);
          if (pending) inspectLine(pending, w);
          resolve({
            exitCode: null,
            signal: null,
            // The idle reason also closes stderr: a judge that words only "exited with
            // SIGKILL: <stderr tail>" still says why the runner ended it.
            stdout,
            stderr: idleReason ? `${stderr}\nforge: ${idleReason}\n` : stderr,
            timedOut,
            turnLimitHit,
            cancelled,
            turns,
            ...(stoppedBy !== undefined ? { stoppedBy } : {}),
            ...(idleReason !== undefined ? { idle: idleReason } : {}),
            ...ended,
          });
        };
        if (ended) onEnd();
      });
    },
  };
}

export function describeToolUse(block: Record<string, unknown>): string {
  const name = String(block.name ?? "tool");
  const input = (block.input ?? {}) as Record<string, unknown>;
  const detail =
    typeof input.command === "string"
      ? input.command
      : typeof input.file_path === "string"
        ? input.file_path
        : typeof input.pattern === "string"
          ? input.pattern
          : "";
  const oneLine = detail.replace(/\s+/g, " ").trim();
  return oneLine ? `${name}: ${oneLine.slice(0, 80)}` : name;
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((c) => (c && typeof c === "object" && "text" in c ? String(c.text) : ""))
      .join(" ");
  }
  return "";
}
