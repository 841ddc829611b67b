// The PreToolUse hook's stdin, validated. Anything unexpected is an error (exit 2 = deny):
// the guard never decides on input it does not understand.
import { hasControlChars } from "./path-normalise.js";

export interface HookInput {
  readonly hook_event_name: "PreToolUse";
  readonly tool_name: string;
  readonly tool_input: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  readonly session_id?: string;
  readonly transcript_path?: string;
}

export class HookInputError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function parseHookInput(text: string): HookInput {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new HookInputError("stdin is not JSON");
  }
  if (!isRecord(data)) throw new HookInputError("stdin is not a JSON object");
  const { hook_event_name, tool_name, tool_input, cwd } = data;
  if (hook_event_name !== "PreToolUse") {
    throw new HookInputError("hook_event_name is not PreToolUse");
  }
  if (typeof tool_name !== "string" || tool_name === "") {
    throw new HookInputError("tool_name is missing");
  }
  if (!isRecord(tool_input)) throw new HookInputError("tool_input is missing or not an object");
  if (typeof cwd !== "string" || !cwd.startsWith("/")) {
    throw new HookInputError("cwd is missing or not an absolute path");
  }
  if (hasControlChars(cwd)) throw new HookInputError("cwd contains control characters");
  return {
    hook_event_name,
    tool_name,
    tool_input,
    cwd,
    ...(typeof data.session_id === "string" ? { session_id: data.session_id } : {}),
    ...(typeof data.transcript_path === "string" ? { transcript_path: data.transcript_path } : {}),
  };
}
