// `codex exec`. The codex binary is not installed here: flags come from FACTS.md (read in
// `codex exec --help` of 0.17x) and are marked; tests check the argv only.
import { type FlagSpec, removeFlags } from "./argv.js";
import { pick } from "./claude.js";
import { ProviderConfigError } from "./errors.js";
import { applyReadOnly } from "./read-only-flags.js";
import type { Invocation, InvocationOptions, ParsedResult, Provider } from "./types.js";

export const CODEX_CREDENTIAL_VARS = ["OPENAI_API_KEY", "OPENAI_BASE_URL"] as const;

/** Which codex flags we use and where they were read. */
export const CODEX_FLAGS = {
  exec: "verified (FACTS.md: codex exec --help)",
  "--sandbox": "verified (FACTS.md: -s, --sandbox read-only|workspace-write|danger-full-access)",
  "--cd": "verified (FACTS.md: -C/--cd)",
  "--model": "verified (FACTS.md: -m/--model)",
  "--output-schema":
    "NOT verified here (not in FACTS.md; issue 3 names it); passed only with schemaFile",
} as const;

const OWNED: FlagSpec[] = [
  { long: ["--cd"], short: ["-C"], takesValue: true },
  { long: ["--output-schema"], takesValue: true },
];
const MODEL: FlagSpec = { long: ["--model"], short: ["-m"], takesValue: true };

export function codexProvider(opts: { binary?: string } = {}): Provider {
  const command = opts.binary ?? "codex";
  return {
    name: "codex",
    promptOnStdin: false,
    buildInvocation: (o) => buildCodexInvocation(command, o),
    parseResult: parseCodexResult,
    credentialEnv: (env) => pick(env, CODEX_CREDENTIAL_VARS),
  };
}

function buildCodexInvocation(command: string, o: InvocationOptions): Invocation {
  if (o.prompt === undefined) {
    throw new ProviderConfigError("codex takes its prompt on the command line: none was given");
  }
  const prompt = o.prompt;
  const extra = o.extraArgs ?? [];
  if (extra.includes("--")) {
    throw new ProviderConfigError(
      "extra args must not contain '--' (it would turn our flags into the prompt)",
    );
  }
  const notes: string[] = [
    "codex is not installed on this machine: argv built from FACTS.md, not run",
  ];
  const cleaned = removeFlags(extra, o.model ? [...OWNED, MODEL] : OWNED);
  if (cleaned.removed.length)
    notes.push(`extra args overridden by ours: ${cleaned.removed.join(", ")}`);
  const args = ["exec", "-C", o.cwd];
  if (o.model) args.push("-m", o.model);
  if (o.schemaFile) {
    args.push("--output-schema", o.schemaFile);
    notes.push(`--output-schema: ${CODEX_FLAGS["--output-schema"]}`);
  } else {
    notes.push("no schema file: codex gets no --output-schema, so the step cannot PASS");
  }
  if (o.maxTurns !== undefined || o.maxBudgetUsd !== undefined) {
    notes.push(
      "max_turns / max_budget_usd: no codex exec flag known; the runner must enforce them",
    );
  }
  if (o.settingsFile) notes.push("settings file is Claude-only; ignored for codex");
  args.push(...cleaned.args);

  if (o.readOnly) {
    const ro = applyReadOnly("codex", [...args, "--", prompt]);
    notes.push(ro.note);
    return { command, args: ro.args, readOnlyEnforcement: ro.enforcement, notes };
  }
  // A writer: the same removal keeps one --sandbox (clap refuses a repeat).
  const { args: kept } = removeFlags(args, [
    { long: ["--sandbox"], short: ["-s"], takesValue: true },
  ]);
  return {
    command,
    args: [...kept, "--sandbox", "workspace-write", "--", prompt],
    readOnlyEnforcement: "none",
    notes,
  };
}

/**
 * `codex exec` prints the agent's last message on stdout (with --output-schema: the JSON).
 * Not verified here (no binary): accept the whole stdout or its last JSON line.
 */
export function parseCodexResult(stdout: string): ParsedResult {
  const text = stdout.trim();
  if (text === "") return { raw: null, structured: null, isError: true, subtype: "empty" };
  const candidates = [
    text,
    ...text
      .split("\n")
      .reverse()
      .map((l) => l.trim()),
  ];
  for (const c of candidates) {
    if (!c.startsWith("{")) continue;
    try {
      const v: unknown = JSON.parse(c);
      if (v !== null && typeof v === "object" && !Array.isArray(v)) {
        return { raw: text, structured: v, isError: false, subtype: "success" };
      }
    } catch {
      // not JSON: try the next candidate
    }
  }
  return { raw: text, structured: null, isError: false, subtype: "no-json" };
}
