/**
 * A scripted stand-in for the Anthropic Messages API, good enough for the real Claude Code CLI.
 *
 * The CLI streams (`stream: true`) and expects Server-Sent Events in an exact order (the wire
 * format is in messages-wire.ts). A script is a list of turns; the turn to answer is chosen
 * from the conversation itself (the number of assistant messages already in the request),
 * never from a server-side counter, so a CLI retry of the same request gets the same answer
 * and tool ids.
 *
 * Side queries (title/summary/topic generation, quota probes) carry none of the agent's tools;
 * they get a short text and do not advance the script.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Block,
  contentText,
  firstUserText,
  json,
  type MessagesBody,
  readBody,
  sendMessage,
} from "./messages-wire.js";

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/**
 * One assistant turn:
 * - `{ tools: [...] }` — tool_use blocks (optionally preceded by `text`), stop_reason tool_use;
 * - `{ text }` — a final text, stop_reason end_turn;
 * - `{ structured: obj }` — a StructuredOutput tool call (what `--json-schema` asks for).
 */
export type Turn = (
  | { tools: ToolCall[]; text?: string }
  | { text: string }
  | { structured: unknown; text?: string }
) & {
  /** Wait this long before answering (a slow model, for timeout tests). */
  delayMs?: number;
};

export interface Script {
  turns: Turn[];
  /**
   * Several agents on one server (a whole chain): the conversation whose first user message
   * contains a route's marker is answered from that route's turns. `turns` then answers
   * conversations no route claims.
   */
  routes?: Array<{ marker: string; turns: Turn[]; finalText?: string }>;
  /** Text sent once the script is exhausted (the CLI keeps asking after the last tool result). */
  finalText?: string;
  /**
   * When set, only a conversation whose first user message contains this text is the main
   * agent; other tool-bearing conversations (subagents the CLI spawns) get a short text and
   * never consume the script. The harness sets it to the prompt.
   */
  mainMarker?: string;
}

export interface ToolResult {
  toolUseId: string;
  /** Tool name from our own script (the result block carries only the id). */
  name: string;
  input: Record<string, unknown> | undefined;
  /** All text of the result, text parts joined with "\n". */
  content: string;
  isError: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** main: the scripted agent; side: no agent tools (titles, summaries); sub: a subagent. */
  kind: "main" | "side" | "sub" | "other";
  /** Turn index answered for main requests. */
  turn?: number;
  /** Index of the route that answered (routed scripts). */
  route?: number;
  /** When it arrived (ms since the epoch): tests order requests against journal events. */
  at: number;
}

export interface ModelServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** tool_result blocks in the order first seen (deduplicated by tool_use_id). */
  toolResults: ToolResult[];
  /** Paths the server did not know (logged so a CLI upgrade that adds one is visible). */
  unknown: string[];
  /** Replace the script (e.g. between runs on one server). Clears nothing else. */
  setScript(script: Script): void;
  /** Forget recorded requests and results (between runs on one server). */
  reset(): void;
  /** Main-agent requests only. */
  mainRequests(): RecordedRequest[];
  close(): Promise<void>;
}

/** The agent's tools: a request offering none of these is a side query. */
const AGENT_TOOLS = new Set(["Bash", "Read", "Glob", "Grep", "Edit", "Write", "StructuredOutput"]);

export function toolUseId(turn: number, index: number, route = -1): string {
  // Deterministic: a retried request must get the same ids the CLI already saw.
  return route >= 0 ? `toolu_forge_r${route}_t${turn}_c${index}` : `toolu_forge_t${turn}_c${index}`;
}

export async function startModelServer(initial: Script = { turns: [] }): Promise<ModelServer> {
  let script = initial;
  const requests: RecordedRequest[] = [];
  const toolResults: ToolResult[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();

  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((raw) => handle(req, res, raw))
      .catch((error: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }),
        );
      });
  });

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = req.url ?? "/";
    const path = url.split("?")[0] ?? "/";
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // keep raw text
    }
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      url,
      headers: req.headers,
      body,
      kind: "other",
      at: Date.now(),
    };
    requests.push(record);

    if (req.method === "POST" && path === "/v1/messages") {
      const msg = (body ?? {}) as MessagesBody;
      collectToolResults(msg);
      const isMain = (msg.tools ?? []).some((t) => t.name !== undefined && AGENT_TOOLS.has(t.name));
      if (!isMain) {
        record.kind = "side";
        sendMessage(res, msg, [{ type: "text", text: "Scripted run" }], "end_turn");
        return;
      }
      if (script.mainMarker !== undefined && !firstUserText(msg).includes(script.mainMarker)) {
        record.kind = "sub";
        sendMessage(res, msg, [{ type: "text", text: "Nothing to do." }], "end_turn");
        return;
      }
      record.kind = "main";
      const turn = (msg.messages ?? []).filter((m) => m.role === "assistant").length;
      record.turn = turn;
      const first = firstUserText(msg);
      const route = (script.routes ?? []).findIndex((r) => first.includes(r.marker));
      if (route >= 0) record.route = route;
      const [blocks, stop] = turnBlocks(turn, route);
      const delay = turnsOf(route).turns[turn]?.delayMs ?? 0;
      if (delay > 0) setTimeout(() => sendMessage(res, msg, blocks, stop), delay).unref();
      else sendMessage(res, msg, blocks, stop);
      return;
    }
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      json(res, 200, { input_tokens: 100 });
      return;
    }
    if (req.method === "HEAD" || (req.method === "GET" && path === "/")) {
      res.writeHead(200);
      res.end();
      return;
    }
    unknown.push(`${req.method} ${url}`);
    json(res, 404, { type: "error", error: { type: "not_found_error", message: `no ${path}` } });
  }

  function turnsOf(route: number): { turns: Turn[]; finalText?: string } {
    return route >= 0 ? (script.routes?.[route] ?? script) : script;
  }

  function turnBlocks(turn: number, route = -1): [Block[], "tool_use" | "end_turn"] {
    const source = turnsOf(route);
    const t = source.turns[turn];
    if (t === undefined) {
      return [
        [{ type: "text", text: source.finalText ?? script.finalText ?? "Done." }],
        "end_turn",
      ];
    }
    if ("tools" in t) {
      const blocks: Block[] = t.text ? [{ type: "text", text: t.text }] : [];
      t.tools.forEach((call, i) => {
        blocks.push({
          type: "tool_use",
          id: toolUseId(turn, i, route),
          name: call.name,
          input: call.input,
        });
      });
      return [blocks, "tool_use"];
    }
    if ("structured" in t) {
      const blocks: Block[] = t.text ? [{ type: "text", text: t.text }] : [];
      blocks.push({
        type: "tool_use",
        id: toolUseId(turn, 0, route),
        name: "StructuredOutput",
        input: t.structured as Record<string, unknown>,
      });
      return [blocks, "tool_use"];
    }
    return [[{ type: "text", text: t.text }], "end_turn"];
  }

  /** Map an id back to the scripted call that produced it. */
  function callFor(id: string): ToolCall | undefined {
    const m = /^toolu_forge_(?:r(\d+)_)?t(\d+)_c(\d+)$/.exec(id);
    if (!m) return undefined;
    const t = turnsOf(m[1] === undefined ? -1 : Number(m[1])).turns[Number(m[2])];
    if (t === undefined) return undefined;
    if ("tools" in t) return t.tools[Number(m[3])];
    if ("structured" in t) {
      return { name: "StructuredOutput", input: t.structured as Record<string, unknown> };
    }
    return undefined;
  }

  function collectToolResults(msg: MessagesBody): void {
    for (const m of msg.messages ?? []) {
      if (m.role !== "user" || !Array.isArray(m.content)) continue;
      for (const block of m.content as Array<Record<string, unknown>>) {
        if (block.type !== "tool_result") continue;
        const id = String(block.tool_use_id);
        if (seen.has(id)) continue;
        seen.add(id);
        const call = callFor(id);
        toolResults.push({
          toolUseId: id,
          name: call?.name ?? "?",
          input: call?.input,
          content: contentText(block.content),
          isError: block.is_error === true,
        });
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    toolResults,
    unknown,
    setScript(next) {
      script = next;
    },
    reset() {
      requests.length = 0;
      toolResults.length = 0;
      unknown.length = 0;
      seen.clear();
    },
    mainRequests() {
      return requests.filter((r) => r.kind === "main");
    },
    close() {
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
