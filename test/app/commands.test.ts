import { describe, expect, it } from "vitest";
import {
  HELP_TEXT,
  MAX_ANSWER_CHARS,
  MAX_COMMENT_BYTES,
  type ParsedCommand,
  parseCommand,
} from "../../src/app/commands.js";

const RUN_ID = "0123456789abcdef0123456789abcdef";
const respondJson = JSON.stringify({ run_id: RUN_ID, request_id: "request-1", answer: "Yes." });

const table: Array<[string, string, ParsedCommand]> = [
  ["plain run", "/forge run", { kind: "run" }],
  ["run with chain", "/forge run review", { kind: "run", chain: "review" }],
  ["run change", "/forge run change", { kind: "run", chain: "change" }],
  ["trailing text on later lines", "/forge run\nplease and thanks", { kind: "run" }],
  ["CRLF", "/forge run review\r\nthanks", { kind: "run", chain: "review" }],
  ["lone CR", "/forge status\rmore", { kind: "status" }],
  ["leading blank lines", "\n  \n/forge status", { kind: "status" }],
  ["up to 3 spaces of indent", "   /forge help", { kind: "help" }],
  ["trailing spaces", "/forge help   ", { kind: "help" }],
  ["bare /forge", "/forge", { kind: "help" }],
  [
    "respond",
    `/forge respond ${respondJson}`,
    { kind: "respond", runId: RUN_ID, requestId: "request-1", answer: "Yes." },
  ],
  [
    "respond with extra spacing",
    `/forge  respond   ${respondJson}`,
    { kind: "respond", runId: RUN_ID, requestId: "request-1", answer: "Yes." },
  ],
  [
    "respond with a tab, CRLF",
    `/forge\trespond ${respondJson}\r\n`,
    { kind: "respond", runId: RUN_ID, requestId: "request-1", answer: "Yes." },
  ],
  ["resume", "/forge resume", { kind: "resume" }],
  ["resume run", `/forge resume ${RUN_ID}`, { kind: "resume", runId: RUN_ID }],
  ["approve run", `/forge approve ${RUN_ID}`, { kind: "approve", runId: RUN_ID }],
  ["cancel", "/forge cancel", { kind: "cancel" }],
  ["status run", `/forge status ${RUN_ID}`, { kind: "status", runId: RUN_ID }],
  ["help ignores args", "/forge help me", { kind: "help" }],
  ["unknown", "/forge deploy", { kind: "help", reason: 'unknown command "deploy"' }],
  [
    "unknown, sanitised",
    "/forge @everyone`<b>",
    { kind: "help", reason: 'unknown command "everyoneb"' },
  ],
  ["case matters", "/forge Run", { kind: "help", reason: 'unknown command "Run"' }],
  ["not a command", "Looks good to me", { kind: "none" }],
  ["/forgery", "/forgery run", { kind: "none" }],
  ["/forge-run", "/forge-run", { kind: "none" }],
  ["second line only", "Thanks!\n/forge run", { kind: "none" }],
  ["inline mention", "try `/forge run`", { kind: "none" }],
  ["fenced code block", "```\n/forge run\n```", { kind: "none" }],
  ["fenced with info string", "```sh\n/forge run\n```", { kind: "none" }],
  ["tilde fence", "~~~\n/forge run\n~~~", { kind: "none" }],
  ["indented code block", "    /forge run", { kind: "none" }],
  ["tab-indented code", "\t/forge run", { kind: "none" }],
  ["quoted", "> /forge run", { kind: "none" }],
  ["quoted, indented", "  > /forge run", { kind: "none" }],
  ["html comment", "<!-- /forge run -->", { kind: "none" }],
  ["empty", "", { kind: "none" }],
  ["BOM", "\uFEFF/forge status", { kind: "status" }],
];

describe("parseCommand", () => {
  it.each(table)("%s", (_name, body, expected) => {
    expect(parseCommand(body)).toEqual(expected);
  });

  it("refuses an unknown chain and extra arguments", () => {
    expect(parseCommand("/forge run everything")).toMatchObject({
      kind: "invalid",
      command: "run",
      message: expect.stringContaining("change, review"),
    });
    expect(parseCommand(`/forge resume ${RUN_ID} now`)).toMatchObject({
      kind: "invalid",
      command: "resume",
    });
    expect(parseCommand("/forge cancel ../../x")).toMatchObject({
      kind: "invalid",
      command: "cancel",
    });
  });

  it("malformed respond JSON is a typed result with a clear message that echoes nothing", () => {
    const bad = parseCommand('/forge respond {"run_id": "<script>", "answer": ');
    expect(bad).toMatchObject({ kind: "invalid", command: "respond" });
    if (bad.kind !== "invalid") throw new Error("unreachable");
    expect(bad.message).toContain("not valid JSON");
    expect(bad.message).toContain('/forge respond {"run_id"');
    expect(bad.message).not.toContain("<script>");
  });

  it("respond without JSON, and JSON on a later line, are refused", () => {
    expect(parseCommand("/forge respond")).toMatchObject({ kind: "invalid", command: "respond" });
    expect(parseCommand(`/forge respond\n${respondJson}`)).toMatchObject({
      kind: "invalid",
      command: "respond",
    });
  });

  it("validates the respond fields", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ run_id: RUN_ID, request_id: "r1" }, /answer: must be a string/],
      [{ run_id: RUN_ID, request_id: "r1", answer: "   " }, /answer: must not be empty/],
      [{ run_id: RUN_ID, request_id: "r1", answer: 42 }, /answer: must be a string/],
      [{ run_id: "a b", request_id: "r1", answer: "x" }, /run_id: must be an id/],
      [{ run_id: RUN_ID, request_id: "../x", answer: "x" }, /request_id: must be an id/],
      [{ run_id: RUN_ID, request_id: "r1", answer: "x", actor: "me" }, /unknown field.*"actor"/],
      [
        { run_id: RUN_ID, request_id: "r1", answer: "x".repeat(MAX_ANSWER_CHARS + 1) },
        /answer: must be at most 8000/,
      ],
      [["not", "an", "object"], /needs a JSON object/],
      ["a string", /needs a JSON object/],
    ];
    for (const [value, pattern] of cases) {
      const got = parseCommand(
        `/forge respond ${typeof value === "string" ? value : JSON.stringify(value)}`,
      );
      expect(got.kind, JSON.stringify(value).slice(0, 60)).toBe("invalid");
      if (got.kind === "invalid") expect(got.message).toMatch(pattern);
    }
    const longest = parseCommand(
      `/forge respond ${JSON.stringify({ run_id: RUN_ID, request_id: "r1", answer: "x".repeat(MAX_ANSWER_CHARS) })}`,
    );
    expect(longest.kind).toBe("respond");
  });

  it("refuses a 1 MB command comment without scanning it, and ignores a big non-command", () => {
    const huge = `/forge run\n${"x".repeat(1024 * 1024)}`;
    expect(parseCommand(huge)).toMatchObject({
      kind: "too-large",
      message: expect.stringContaining("64 KiB"),
    });
    expect(parseCommand(`hello\n${"x".repeat(1024 * 1024)}`)).toEqual({ kind: "none" });
    // The limit is in bytes: 40 000 three-byte characters are ~120 KB.
    expect(parseCommand(`/forge run\n${"€".repeat(40_000)}`).kind).toBe("too-large");
    expect(parseCommand(`/forge run\n${"x".repeat(MAX_COMMENT_BYTES - 11)}`).kind).toBe("run");
  });

  it("exports a help text naming every command", () => {
    for (const word of ["run", "respond", "resume", "approve", "cancel", "status", "help"]) {
      expect(HELP_TEXT).toContain(`/forge ${word}`);
    }
  });
});
