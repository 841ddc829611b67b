/**
 * The Messages API on the wire, as the scripted model server (server.ts) speaks it: the
 * request body it reads, and an answer sent as one JSON message or — for `stream: true`, which
 * the CLI always asks for — as Server-Sent Events in the exact order the CLI expects:
 * message_start → (content_block_start → content_block_delta* → content_block_stop)* →
 * message_delta (stop_reason) → message_stop. Apart from server.ts because this is the
 * protocol alone; which answer a request gets is the script's business there.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

interface MessageParam {
  role: string;
  content: unknown;
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: Array<{ name?: string }>;
  messages?: MessageParam[];
}

export type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export function firstUserText(msg: MessagesBody): string {
  const first = (msg.messages ?? []).find((m) => m.role === "user");
  return first ? contentText(first.content) : "";
}

export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c: { type?: string; text?: string }) => (c.type === "text" ? (c.text ?? "") : ""))
    .join("\n");
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

let messageCounter = 0;

export function sendMessage(
  res: ServerResponse,
  req: MessagesBody,
  blocks: Block[],
  stopReason: "tool_use" | "end_turn",
): void {
  const model = req.model ?? "claude-sonnet-4-5";
  const usage = { input_tokens: 10, output_tokens: 5 };
  const message = {
    id: `msg_forge_${++messageCounter}`,
    type: "message",
    role: "assistant",
    model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (req.stream !== true) {
    json(res, 200, message);
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const send = (event: string, data: unknown) => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  send("message_start", {
    type: "message_start",
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      send("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      });
    } else {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      send("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send("message_stop", { type: "message_stop" });
  res.end();
}
