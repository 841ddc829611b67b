// Runs one agent process (already wrapped in its box), streaming Claude Code's stream-json
// so progress (last tool call, refusals) is live and the turn ceiling is enforced here:
// claude 2.1.332 has no --max-turns flag, so the runner counts assistant turns itself.
import { spawnBoxed } from "../boxes/box-spawn.js";
import type { WrappedCommand } from "../boxes/types.js";

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
}

export interface AgentProcessOptions {
  timeoutMs: number;
  maxTurns?: number;
  signal?: AbortSignal;
  onToolUse?: (summary: string) => void;
  onRefusal?: (text: string) => void;
  /** A refusal that ends the step at once (R7.3: a role-gate violation). */
  stopOnRefusal?: (text: string) => boolean;
  maxOutputBytes?: number;
  /** Descriptors the box gets as 3, 4, … (the guard server's listening socket). */
  inheritFds?: readonly number[];
  /** Called right after the spawn (the runner closes its copies of inherited descriptors). */
  onSpawn?: () => void;
}

export function runAgentProcess(
  cmd: WrappedCommand,
  opts: AgentProcessOptions,
): Promise<AgentProcessResult> {
  const max = opts.maxOutputBytes ?? 32 * 1024 * 1024;
  if (opts.signal?.aborted) {
    // Cancelled before the box started: start nothing (a box killed in its first
    // milliseconds is the hardest one to kill, see box-spawn.ts).
    opts.onSpawn?.();
    return Promise.resolve({
      exitCode: null,
      signal: null,
      stdout: "",
      stderr: "",
      timedOut: false,
      turnLimitHit: false,
      cancelled: true,
      turns: 0,
    });
  }
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let pending = "";
    let turns = 0;
    let timedOut = false;
    let turnLimitHit = false;
    let cancelled = false;
    let stoppedBy: string | undefined;
    const boxed = spawnBoxed(cmd, { inheritFds: opts.inheritFds ?? [] });
    const child = boxed.child;
    opts.onSpawn?.();
    const kill = () => boxed.kill();
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (stdout.length < max) stdout += text;
      pending += text;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        inspectLine(line);
        nl = pending.indexOf("\n");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < max) stderr += chunk.toString("utf8");
    });

    function inspectLine(line: string): void {
      if (!line.startsWith("{")) return;
      let msg: { type?: string; message?: { content?: unknown } };
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      const content = Array.isArray(msg.message?.content) ? msg.message.content : [];
      if (msg.type === "assistant") {
        turns++;
        for (const block of content as Array<Record<string, unknown>>) {
          if (block.type === "tool_use") opts.onToolUse?.(describeToolUse(block));
        }
        if (opts.maxTurns !== undefined && turns > opts.maxTurns) {
          turnLimitHit = true;
          kill();
        }
      } else if (msg.type === "user") {
        for (const block of content as Array<Record<string, unknown>>) {
          if (block.type === "tool_result" && block.is_error === true) {
            const text = toolResultText(block.content);
            opts.onRefusal?.(text.slice(0, 300));
            if (stoppedBy === undefined && opts.stopOnRefusal?.(text)) {
              stoppedBy = text.slice(0, 500);
              kill();
            }
          }
        }
      }
    }

    const finish = (r: Partial<AgentProcessResult>) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (pending) inspectLine(pending);
      resolve({
        exitCode: null,
        signal: null,
        stdout,
        stderr,
        timedOut,
        turnLimitHit,
        cancelled,
        turns,
        ...(stoppedBy !== undefined ? { stoppedBy } : {}),
        ...r,
      });
    };
    child.on("error", (error) => finish({ spawnError: error.message }));
    child.on("close", (code, signal) => finish({ exitCode: code, signal }));
  });
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
