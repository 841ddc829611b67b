/**
 * The scripted model server on its own, over real HTTP: the SSE event order Claude Code needs,
 * turn selection from the conversation (so a retried request gets the same answer), side
 * queries and subagents kept off the script, and the tool_result record.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, type Script, startModelServer, toolUseId } from "./model-server.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOOLS = [{ name: "Bash" }, { name: "Read" }];
const script: Script = {
  mainMarker: "PROMPT-1",
  turns: [
    {
      tools: [
        { name: "Read", input: { file_path: "README.md" } },
        { name: "Bash", input: { command: "ls" } },
      ],
    },
    { structured: { verdict: "PASS" } },
  ],
  finalText: "bye",
};

// SSE payloads are loose JSON; the assertions check their shape.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Loose = any;

async function post(
  body: unknown,
): Promise<{ status: number; events: Array<{ event: string; data: Loose }> }> {
  const res = await fetch(`${server?.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const events = text
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? "null");
      return { event, data };
    });
  return { status: res.status, events };
}

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });

describe("model server", () => {
  it("streams a tool turn in the order the CLI expects, with deterministic ids", async () => {
    server = await startModelServer(script);
    const body = { stream: true, tools: TOOLS, messages: [user("PROMPT-1")] };
    const { status, events } = await post(body);
    expect(status).toBe(200);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[1]?.data.content_block).toMatchObject({
      type: "tool_use",
      name: "Read",
      id: toolUseId(0, 0),
    });
    expect(JSON.parse(events[2]?.data.delta.partial_json)).toEqual({ file_path: "README.md" });
    expect(events[7]?.data.delta.stop_reason).toBe("tool_use");
    // A retry of the same request gets the same turn and ids.
    const again = await post(body);
    expect(again.events[1]?.data.content_block.id).toBe(toolUseId(0, 0));
    expect(server.mainRequests().map((r) => r.turn)).toEqual([0, 0]);
  });

  it("picks the turn from the assistant messages and records tool results", async () => {
    server = await startModelServer(script);
    const messages = [
      user("PROMPT-1"),
      {
        role: "assistant",
        content: [{ type: "tool_use", id: toolUseId(0, 0), name: "Read", input: {} }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: toolUseId(0, 0),
            content: [{ type: "text", text: "hi" }],
          },
          { type: "tool_result", tool_use_id: toolUseId(0, 1), content: "no", is_error: true },
        ],
      },
    ];
    const { events } = await post({ stream: true, tools: TOOLS, messages });
    expect(events[1]?.data.content_block).toMatchObject({
      type: "tool_use",
      name: "StructuredOutput",
    });
    expect(server.toolResults).toEqual([
      {
        toolUseId: toolUseId(0, 0),
        name: "Read",
        input: { file_path: "README.md" },
        content: "hi",
        isError: false,
      },
      {
        toolUseId: toolUseId(0, 1),
        name: "Bash",
        input: { command: "ls" },
        content: "no",
        isError: true,
      },
    ]);
    // Past the script: the final text ends the turn.
    const end = await post({
      stream: true,
      tools: TOOLS,
      messages: [...messages, { role: "assistant", content: [] }, user("x")],
    });
    expect(end.events[2]?.data.delta).toEqual({ type: "text_delta", text: "bye" });
    expect(end.events.at(-2)?.data.delta.stop_reason).toBe("end_turn");
    // Each tool result is recorded once, however often the CLI resends the history.
    expect(server.toolResults).toHaveLength(2);
  });

  it("answers side queries and subagents with text, without touching the script", async () => {
    server = await startModelServer(script);
    const side = await post({ stream: true, messages: [user("Write a title")] });
    expect(side.events[2]?.data.delta.type).toBe("text_delta");
    const sub = await post({ stream: true, tools: TOOLS, messages: [user("a subagent task")] });
    expect(sub.events[1]?.data.content_block.type).toBe("text");
    expect(server.requests.map((r) => r.kind)).toEqual(["side", "sub"]);
    expect(server.mainRequests()).toEqual([]);
    const nonStream = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ messages: [user("t")] }),
    });
    expect(((await nonStream.json()) as { content: unknown[] }).content).toHaveLength(1);
  });

  it("logs unknown endpoints and answers them 404", async () => {
    server = await startModelServer(script);
    const res = await fetch(`${server.url}/api/oauth/profile`);
    expect(res.status).toBe(404);
    expect(server.unknown).toEqual(["GET /api/oauth/profile"]);
    expect((await fetch(`${server.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
  });
});
