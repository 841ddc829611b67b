/**
 * A minimal scripted Messages API for the box-prove enforcement check (R7.2). Production code,
 * deliberately small and separate from test/harness/: src must not import test code.
 *
 * The installed claude CLI streams (`stream: true`) and expects SSE in this order:
 * message_start → (content_block_start → content_block_delta → content_block_stop)* →
 * message_delta (stop_reason) → message_stop. The turn to answer is the number of assistant
 * messages already in the request (stateless, so a CLI retry gets the same answer). Requests
 * that offer none of the agent's tools are side queries (titles, summaries) and get a text.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
}

/** What came back to the model for one scripted call. */
export interface ObservedResult {
  turn: number;
  call: ScriptedCall;
  isError: boolean;
  content: string;
}

export interface EnforcementModel {
  /** Base URL for ANTHROPIC_BASE_URL. */
  url: string;
  /** Tool results in the order the CLI sent them back (deduplicated by tool_use id). */
  results: ObservedResult[];
  /** Every request body as raw text: lets the caller prove a secret never left the box. */
  rawBodies: string[];
  close(): Promise<void>;
}

const AGENT_TOOLS = new Set(["Bash", "Read", "Write", "Edit", "Glob", "Grep"]);

/**
 * Serve `calls` one per turn, then end with `finalText`. Listens on `host` (loopback by
 * default; the box must be able to reach it, which is itself one of the proved facts).
 */
export async function startEnforcementModel(
  calls: ScriptedCall[],
  opts: { host?: string; finalText?: string } = {},
): Promise<EnforcementModel> {
  const results: ObservedResult[] = [];
  const rawBodies: string[] = [];
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "POST" || path !== "/v1/messages") {
      const status = path === "/v1/messages/count_tokens" ? 200 : 404;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { input_tokens: 1 } : { type: "error" }));
      return;
    }
    rawBodies.push(raw);
    let body: { tools?: Array<{ name?: string }>; messages?: Array<Record<string, unknown>> };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      body = {};
    }
    const main = (body.tools ?? []).some((t) => AGENT_TOOLS.has(t.name ?? ""));
    if (!main) {
      sse(res, [{ type: "text", text: "ok" }], "end_turn");
      return;
    }
    const messages = body.messages ?? [];
    collect(messages);
    const turn = messages.filter((m) => m.role === "assistant").length;
    const call = calls[turn];
    if (call === undefined) {
      sse(res, [{ type: "text", text: opts.finalText ?? "Done." }], "end_turn");
      return;
    }
    sse(res, [{ type: "tool_use", id: `toolu_prove_${turn}`, ...call }], "tool_use");
  }

  function collect(messages: Array<Record<string, unknown>>): void {
    for (const m of messages) {
      if (m.role !== "user" || !Array.isArray(m.content)) continue;
      for (const block of m.content as Array<Record<string, unknown>>) {
        if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
        const match = /^toolu_prove_(\d+)$/.exec(block.tool_use_id);
        if (!match || seen.has(block.tool_use_id)) continue;
        seen.add(block.tool_use_id);
        const turn = Number(match[1]);
        const call = calls[turn];
        if (call === undefined) continue;
        results.push({
          turn,
          call,
          isError: block.is_error === true,
          content: text(block.content),
        });
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, opts.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? "127.0.0.1"}:${port}`,
    results,
    rawBodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : ""))
    .join("\n");
}

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

function sse(res: ServerResponse, blocks: Block[], stop: "tool_use" | "end_turn"): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const usage = { input_tokens: 1, output_tokens: 1 };
  send("message_start", {
    type: "message_start",
    message: {
      id: `msg_prove_${Date.now()}`,
      type: "message",
      role: "assistant",
      model: "scripted-prove",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  blocks.forEach((b, index) => {
    const start = b.type === "text" ? { type: "text", text: "" } : { ...b, input: {} };
    send("content_block_start", { type: "content_block_start", index, content_block: start });
    const delta =
      b.type === "text"
        ? { type: "text_delta", text: b.text }
        : { type: "input_json_delta", partial_json: JSON.stringify(b.input) };
    send("content_block_delta", { type: "content_block_delta", index, delta });
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage,
  });
  send("message_stop", { type: "message_stop" });
  res.end();
}
