// A step's transcript (claude's stream-json, as journaled in `runner.step.transcript`) as text
// a person reads: what the agent said, each tool call and its result — refusals and failed
// commands labelled as what they are — and the final result with its cost.
import { classifyToolError } from "../../runner/tool-error.js";

const MAX_RESULT_LINES = 12;

type Block = Record<string, unknown>;

export function transcriptText(stream: string): string {
  const out: string[] = [];
  for (const raw of stream.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      out.push(`  ${line}`);
      continue;
    }
    out.push(...describe(msg));
  }
  return out.join("\n");
}

function describe(msg: Record<string, unknown>): string[] {
  const content = (msg.message as { content?: unknown } | undefined)?.content;
  const blocks = Array.isArray(content) ? (content as Block[]) : [];
  const sub = msg.parent_tool_use_id ? "  (subagent) " : "";
  switch (msg.type) {
    case "system":
      return system(msg);
    case "assistant":
      return blocks.flatMap((b) => assistantBlock(b, sub));
    case "user":
      return blocks.flatMap((b) => userBlock(b, sub));
    case "result":
      return result(msg);
    default:
      return [];
  }
}

function system(msg: Record<string, unknown>): string[] {
  if (msg.subtype === "init") {
    const tools = Array.isArray(msg.tools) ? msg.tools.length : 0;
    return [`── session start: model ${String(msg.model ?? "?")}, ${tools} tools`];
  }
  if (msg.subtype === "api_retry") {
    const status = msg.error_status == null ? "" : `, status ${String(msg.error_status)}`;
    return [
      `!! model endpoint failed (${String(msg.error ?? "error")}${status}): retry ${String(msg.attempt ?? "?")} of ${String(msg.max_retries ?? "?")}`,
    ];
  }
  return [];
}

function assistantBlock(b: Block, sub: string): string[] {
  if (b.type === "text" && typeof b.text === "string" && b.text.trim() !== "") {
    return indent(`${sub}agent: `, b.text.trim());
  }
  if (b.type === "thinking" && typeof b.thinking === "string" && b.thinking.trim() !== "") {
    return indent(`${sub}(thinking) `, b.thinking.trim());
  }
  if (b.type !== "tool_use") return [];
  const input = (b.input ?? {}) as Record<string, unknown>;
  const name = String(b.name ?? "tool");
  if (name === "StructuredOutput") {
    const verdict = typeof input.verdict === "string" ? ` verdict ${input.verdict}` : "";
    return [`${sub}→ StructuredOutput:${verdict}`];
  }
  const main =
    typeof input.command === "string"
      ? input.command
      : typeof input.file_path === "string"
        ? input.file_path
        : typeof input.pattern === "string"
          ? input.pattern
          : JSON.stringify(input).slice(0, 200);
  return indent(`${sub}→ ${name}: `, main);
}

function userBlock(b: Block, sub: string): string[] {
  if (b.type !== "tool_result") return [];
  const text = resultText(b.content);
  if (b.is_error !== true) return indent(`${sub}  ← `, shorten(text) || "(no output)");
  const error = classifyToolError(text);
  const label =
    error.kind === "refused"
      ? "REFUSED"
      : error.kind === "exit"
        ? `exit ${error.exitCode}`
        : "failed";
  return indent(`${sub}  ← ${label}: `, shorten(error.detail) || "(no output)");
}

function result(msg: Record<string, unknown>): string[] {
  const parts = [`${String(msg.subtype ?? "done")}`];
  if (typeof msg.num_turns === "number") parts.push(`${msg.num_turns} turns`);
  if (typeof msg.total_cost_usd === "number") parts.push(`$${msg.total_cost_usd.toFixed(4)}`);
  const lines = [`── result: ${parts.join(", ")}${msg.is_error === true ? " (error)" : ""}`];
  const denials = Array.isArray(msg.permission_denials) ? msg.permission_denials.length : 0;
  if (denials > 0) lines.push(`   ${denials} tool call(s) refused`);
  const out = msg.structured_output as Record<string, unknown> | undefined;
  if (out && typeof out === "object") {
    if (typeof out.verdict === "string") lines.push(`   verdict: ${out.verdict}`);
    if (typeof out.summary === "string") lines.push(...indent("   summary: ", out.summary));
  } else if (typeof msg.result === "string" && msg.result.trim() !== "") {
    lines.push(...indent("   final output: ", shorten(msg.result)));
  }
  return lines;
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c) => (c && typeof c === "object" && "text" in c ? String(c.text) : ""))
    .join("\n");
}

/** The first lines of a long tool result, with how many were left out. */
function shorten(text: string): string {
  const lines = text.trimEnd().split("\n");
  if (lines.length <= MAX_RESULT_LINES) return lines.join("\n");
  const kept = lines.slice(0, MAX_RESULT_LINES).join("\n");
  return `${kept}\n… (${lines.length - MAX_RESULT_LINES} more lines)`;
}

/** `first` before the first line; the following lines indented under it. */
function indent(first: string, text: string): string[] {
  const pad = " ".repeat(Math.min(first.length, 8));
  return text.split("\n").map((l, i) => (i === 0 ? `${first}${l}` : `${pad}${l}`));
}
