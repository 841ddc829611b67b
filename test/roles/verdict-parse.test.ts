import { describe, expect, it } from "vitest";
import { NOT_JSON, parseOutputText } from "../../src/roles/verdict.js";

describe("parseOutputText", () => {
  it("parses one JSON document, with a BOM and surrounding whitespace", () => {
    expect(parseOutputText('\uFEFF\n {"a": 1}\n')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseOutputText("[1,2]")).toEqual({ ok: true, value: [1, 2] });
  });

  it("takes the last result message of JSON Lines (stream-json)", () => {
    const lines = [
      JSON.stringify({ type: "system", subtype: "init" }),
      JSON.stringify({ type: "result", subtype: "error_max_turns" }),
      JSON.stringify({ type: "assistant" }),
      JSON.stringify({ type: "result", subtype: "success", n: 2 }),
    ].join("\n");
    expect(parseOutputText(lines)).toEqual({
      ok: true,
      value: { type: "result", subtype: "success", n: 2 },
    });
  });

  it("refuses JSON Lines without a result and lines that are not all JSON", () => {
    expect(parseOutputText('{"type":"system"}\n{"type":"assistant"}')).toEqual({
      ok: false,
      reason: NOT_JSON,
    });
    expect(parseOutputText('{"type":"result"}\nnot json')).toEqual({ ok: false, reason: NOT_JSON });
  });

  it("refuses empty and non-JSON text with the fixed reason", () => {
    for (const text of ["", "\n\n", "PASS", "{'verdict': 'PASS'}", "{"]) {
      expect(parseOutputText(text)).toEqual({ ok: false, reason: "output is not JSON" });
    }
  });
});
