/**
 * Comment commands (R1.3): a pure parser, no I/O. Only the first line of a comment counts,
 * and only when it is plain text — a `/forge` line in a fenced or indented code block or in a
 * quote is an example someone is showing, not a command. Comment text is untrusted (SPEC §11):
 * nothing from it is echoed back except sanitised, length-limited words.
 */
import { z } from "zod";
import { CHAINS, type ChainKind, isChainKind } from "../roles/role-names.js";

/** Bodies larger than this are refused before any parsing (GitHub allows 65 536 chars). */
export const MAX_COMMENT_BYTES = 64 * 1024;
/** The longest answer `/forge respond` takes. */
export const MAX_ANSWER_CHARS = 8000;
/** Run and request ids: what the engine issues, nothing that could break out of markup. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export type CommandName = "run" | "respond" | "resume" | "approve" | "cancel" | "status" | "help";

export type ParsedCommand =
  | { kind: "none" }
  | { kind: "run"; chain?: ChainKind }
  | { kind: "respond"; runId: string; requestId: string; answer: string }
  | { kind: "resume" | "approve" | "cancel" | "status"; runId?: string }
  | { kind: "help"; reason?: string }
  | { kind: "invalid"; command: CommandName; message: string }
  | { kind: "too-large"; message: string };

const RESPOND_EXAMPLE =
  '/forge respond {"run_id":"<run id>","request_id":"<request id>","answer":"<your answer>"}';

export const HELP_TEXT = [
  "**forgechain commands** (first line of a comment, outside code blocks and quotes):",
  "",
  `- \`/forge run [${Object.keys(CHAINS).join("|")}]\` — start a chain on this issue or pull request`,
  `- \`${RESPOND_EXAMPLE}\` — answer an agent's question (the run stays paused)`,
  "- `/forge resume [run_id]` — continue a paused run once its questions are answered",
  "- `/forge approve [run_id]` — approve a change that touches protected paths",
  "- `/forge cancel [run_id]` — cancel a run",
  "- `/forge status [run_id]` — show where a run stands",
  "- `/forge help` — this text",
  "",
  "Only people with write, maintain or admin permission on this repository can use them.",
].join("\n");

const id = z.string().regex(ID_PATTERN, "must be an id of letters, digits, - and _");
const respondSchema = z.strictObject({
  run_id: id,
  request_id: id,
  answer: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(MAX_ANSWER_CHARS, `must be at most ${MAX_ANSWER_CHARS} characters`),
});

export function parseCommand(body: string): ParsedCommand {
  if (typeof body !== "string") return { kind: "none" };
  // Cheap first: the length in UTF-16 units bounds the UTF-8 size from below, so a 1 MB
  // comment is refused without being scanned. Only its start is looked at, to decide whether
  // it was meant as a command at all (a big comment that is not one gets no reply).
  if (body.length > MAX_COMMENT_BYTES || Buffer.byteLength(body, "utf8") > MAX_COMMENT_BYTES) {
    const head = firstLine(body.slice(0, 1024));
    if (head === null || commandRest(head) === null) return { kind: "none" };
    return {
      kind: "too-large",
      message: `This comment is larger than ${MAX_COMMENT_BYTES / 1024} KiB; forgechain does not read commands from it.`,
    };
  }
  const line = firstLine(body);
  if (line === null) return { kind: "none" };
  const rest = commandRest(line);
  if (rest === null) return { kind: "none" };
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(rest);
  if (!match) return { kind: "help" };
  const word = match[1] ?? "";
  const args = (match[2] ?? "").trim();
  switch (word) {
    case "help":
      return { kind: "help" };
    case "run":
      return parseRun(args);
    case "respond":
      return parseRespond(args);
    case "resume":
    case "approve":
    case "cancel":
    case "status":
      return parseOptionalRunId(word, args);
    default:
      return { kind: "help", reason: `unknown command "${sanitizeWord(word)}"` };
  }
}

/**
 * The first non-blank line, or null when it is not plain paragraph text: a fence opener, an
 * indented code line (a tab or 4+ spaces) or a quote. Up to 3 spaces of indentation are still
 * a paragraph in CommonMark and are allowed.
 */
function firstLine(body: string): string | null {
  const text = body.startsWith("\uFEFF") ? body.slice(1) : body;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (raw.trim() === "") continue;
    if (/^(?: {4}|\t| {0,3}\t)/.test(raw)) return null;
    const line = raw.replace(/^ {1,3}/, "");
    if (line.startsWith(">") || line.startsWith("```") || line.startsWith("~~~")) return null;
    return line.trimEnd();
  }
  return null;
}

/** What follows `/forge` when the line is a command, else null (`/forgery` is not one). */
function commandRest(line: string): string | null {
  if (!line.startsWith("/forge")) return null;
  const after = line.slice("/forge".length);
  if (after !== "" && !/^\s/.test(after)) return null;
  return after.trim();
}

function parseRun(args: string): ParsedCommand {
  if (args === "") return { kind: "run" };
  if (isChainKind(args)) return { kind: "run", chain: args };
  return {
    kind: "invalid",
    command: "run",
    message: `\`/forge run\` takes one of: ${Object.keys(CHAINS).join(", ")} (or nothing for the default chain).`,
  };
}

function parseOptionalRunId(
  command: "resume" | "approve" | "cancel" | "status",
  args: string,
): ParsedCommand {
  if (args === "") return { kind: command };
  if (ID_PATTERN.test(args)) return { kind: command, runId: args };
  return {
    kind: "invalid",
    command,
    message: `\`/forge ${command}\` takes at most one run id (letters, digits, - and _).`,
  };
}

function parseRespond(args: string): ParsedCommand {
  const invalid = (message: string): ParsedCommand => ({
    kind: "invalid",
    command: "respond",
    message: `${message} Use, on the first line of the comment: \`${RESPOND_EXAMPLE}\``,
  });
  if (!args.startsWith("{")) return invalid("`/forge respond` needs a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    // The parser's own message quotes the input; it is untrusted, so it is not echoed.
    return invalid("The JSON after `/forge respond` is not valid JSON.");
  }
  const parsed = respondSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((issue) => {
      if (issue.code === "unrecognized_keys") {
        return `unknown field(s) ${issue.keys.map((k) => `"${sanitizeWord(k)}"`).join(", ")}`;
      }
      const path = issue.path.map((p) => sanitizeWord(String(p))).join(".") || "the value";
      if (issue.code === "invalid_type") return `${path}: must be a string`;
      return `${path}: ${issue.message}`;
    });
    return invalid(`The \`/forge respond\` JSON is not right: ${problems.join("; ")}.`);
  }
  return {
    kind: "respond",
    runId: parsed.data.run_id,
    requestId: parsed.data.request_id,
    answer: parsed.data.answer,
  };
}

/** A word from the comment, safe to quote in a reply: no markup, no mentions, short. */
function sanitizeWord(word: string): string {
  const clean = word.replace(/[^A-Za-z0-9_.-]/g, "");
  return clean.length > 32 ? `${clean.slice(0, 32)}…` : clean;
}
