/**
 * Which defence layer refused a tool call, read from the tool_result text the CLI sent back to
 * the model (Claude Code 2.1.332 wording, measured by test/e2e):
 * - settings: a deny rule, dontAsk's default deny, or a tool removed by a bare deny rule;
 * - cli: a refusal built into the CLI whatever the settings (device/process files);
 * - guard: our PreToolUse hook — exit 2 gives "PreToolUse:<Tool> hook error: [<cmd>]: <stderr>",
 *   a JSON deny gives the bare permissionDecisionReason, which our guard starts with GUARD_MARK.
 */
import type { ToolResult } from "./model-server.js";

export type Layer = "settings" | "guard" | "cli" | "allowed" | "error";

/** Every reason our guard gives starts with this (checked against src/guard's output). */
export const GUARD_MARK = "forge guard";

const SETTINGS_PATTERNS = [
  /denied by your permission settings/,
  /No such tool available/,
  /has been denied because Claude Code is running in don't ask mode/,
  /^Permission to (read|write|edit|use) .* has been denied/,
  /Permission to use \w+ has been denied/,
];

const CLI_PATTERNS = [/names a device or process file that this tool does not read/];

export function refusalLayer(result: ToolResult): Layer {
  const text = result.content;
  if (/^PreToolUse:\w+ hook error:/.test(text) || text.startsWith(GUARD_MARK)) return "guard";
  if (SETTINGS_PATTERNS.some((re) => re.test(text))) return "settings";
  if (CLI_PATTERNS.some((re) => re.test(text))) return "cli";
  return result.isError ? "error" : "allowed";
}
