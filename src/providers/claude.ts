// R2.1: the headless Claude Code command line. Every flag here was read in
// `claude --help` (2.1.332); flags that help does not document are never passed (a guessed
// flag breaks start-up), the note says what was left out.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FlagSpec, removeFlags } from "./argv.js";
import { ProviderConfigError } from "./errors.js";
import { applyReadOnly } from "./read-only-flags.js";
import type { Invocation, InvocationOptions, ParsedResult, Provider } from "./types.js";

/** The provider's own credentials (R2.5: nothing else reaches the agent). */
export const CLAUDE_CREDENTIAL_VARS = [
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
] as const;

/** Flags we set ourselves: a deployment extra must not override them (last value wins). */
const OWNED: FlagSpec[] = [
  { long: ["--permission-mode"], takesValue: true },
  { long: ["--settings"], takesValue: true },
  { long: ["--setting-sources"], takesValue: true },
  { long: ["--output-format"], takesValue: true },
  { long: ["--input-format"], takesValue: true },
  { long: ["--json-schema"], takesValue: true },
  { long: ["--max-budget-usd"], takesValue: true },
  // --bare breaks subscription login and skips hooks (our guard): never (R2.1).
  { long: ["--bare"], takesValue: false },
  { long: ["--dangerously-skip-permissions"], takesValue: false },
  { long: ["--allow-dangerously-skip-permissions"], takesValue: false },
];
const MODEL: FlagSpec = { long: ["--model"], takesValue: true };

export function claudeProvider(opts: { binary?: string } = {}): Provider {
  const command = opts.binary ?? "claude";
  return {
    name: "claude",
    promptOnStdin: true,
    buildInvocation: (o) => buildClaudeInvocation(command, o),
    parseResult: parseClaudeResult,
    credentialEnv: (env) => pick(env, CLAUDE_CREDENTIAL_VARS),
  };
}

/** The checkout's own claude binary (devDependency), else `claude` from PATH. */
export function resolveClaudeBinary(root: string): string {
  const local = join(root, "node_modules", ".bin", "claude");
  return existsSync(local) ? local : "claude";
}

function buildClaudeInvocation(command: string, o: InvocationOptions): Invocation {
  if (!o.settingsFile) {
    // The settings are the permission layer (R4.1): no run without them.
    throw new ProviderConfigError(`claude step ${o.role}: no settings file (settings/<role>.json)`);
  }
  const extra = o.extraArgs ?? [];
  if (extra.includes("--")) {
    throw new ProviderConfigError(
      "extra args must not contain '--' (it would turn our flags into the prompt)",
    );
  }
  const notes: string[] = [];
  const owned = o.model ? [...OWNED, MODEL] : OWNED;
  const cleaned = removeFlags(extra, owned);
  if (cleaned.removed.length)
    notes.push(`extra args overridden by ours: ${cleaned.removed.join(", ")}`);

  // stream-json (with --verbose, which it requires under -p) gives the runner the transcript
  // AND ends with the same {"type":"result",…,"structured_output":…} object that json prints
  // (measured on 2.1.332), so one run yields both.
  const args = [
    "-p",
    "--permission-mode",
    "dontAsk",
    "--settings",
    o.settingsFile,
    // The cloned repo's own hooks, env block and apiKeyHelper would load otherwise (FACTS).
    "--setting-sources",
    "user",
    "--output-format",
    "stream-json",
    "--verbose",
    // The prompt arrives on stdin as one stream-json user message (stdinPrompt below); claude
    // waits for it after starting up, and ends at the end of stdin (measured on 2.1.332).
    "--input-format",
    "stream-json",
  ];
  const schema = o.schemaJson ?? (o.schemaFile ? readFileSync(o.schemaFile, "utf8") : undefined);
  if (schema !== undefined) {
    // --json-schema takes the schema itself, not a path (FACTS); compact and check it is JSON.
    let parsed: unknown;
    try {
      parsed = JSON.parse(schema);
    } catch {
      throw new ProviderConfigError(`claude step ${o.role}: the output schema is not JSON`);
    }
    args.push("--json-schema", JSON.stringify(parsed));
  } else {
    notes.push("no --json-schema: structured output will be null, so the step cannot PASS");
  }
  if (o.model) args.push("--model", o.model);
  if (o.maxBudgetUsd !== undefined) args.push("--max-budget-usd", String(o.maxBudgetUsd));
  if (o.maxTurns !== undefined) {
    notes.push(
      `max_turns ${o.maxTurns} not passed: --max-turns is not in claude --help (2.1.332); ` +
        "the runner must count turns in the stream and stop the step itself",
    );
  }
  args.push(...cleaned.args);

  if (!o.readOnly) {
    return { command, args, readOnlyEnforcement: "none", notes, stdinPrompt: claudeStdinPrompt };
  }
  const ro = applyReadOnly("claude", args);
  notes.push(ro.note);
  return {
    command,
    args: ro.args,
    readOnlyEnforcement: ro.enforcement,
    notes,
    stdinPrompt: claudeStdinPrompt,
  };
}

/** One `--input-format stream-json` user message: the whole prompt as one text block. */
export function claudeStdinPrompt(prompt: string): string {
  const message = { role: "user", content: [{ type: "text", text: prompt }] };
  return `${JSON.stringify({ type: "user", message })}\n`;
}

/**
 * Both output formats end with one result object: stream-json as its last `"type":"result"`
 * line, json as the whole stdout. Anything else is an error (fail-closed, R3.2).
 */
export function parseClaudeResult(stdout: string): ParsedResult {
  const result = lastResultObject(stdout);
  if (result === null) return { raw: null, structured: null, isError: true, subtype: "unparsable" };
  const parsed: ParsedResult = {
    raw: result,
    structured: result.structured_output ?? null,
    isError: result.is_error === true,
  };
  if (typeof result.subtype === "string") parsed.subtype = result.subtype;
  if (typeof result.total_cost_usd === "number") parsed.costUsd = result.total_cost_usd;
  if (typeof result.num_turns === "number") parsed.turns = result.num_turns;
  return parsed;
}

function lastResultObject(stdout: string): Record<string, unknown> | null {
  const lines = stdout.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (!line.startsWith("{")) continue;
    const obj = tryObject(line);
    if (obj?.type === "result") return obj;
  }
  const whole = tryObject(stdout.trim());
  return whole?.type === "result" ? whole : null;
}

function tryObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function pick(
  env: Record<string, string | undefined>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = env[name];
    if (v !== undefined && v !== "") out[name] = v;
  }
  return out;
}
