import type { Role } from "../roles/role-names.js";

export type ProviderName = "claude" | "codex";

/**
 * How a step's read-only rule is enforced by the CLI itself: "flag" = a flag read in that
 * CLI's own --help; "prompt-only" = only the written rule (no verified flag); "none" = the
 * step is not read-only.
 */
export type ReadOnlyEnforcement = "flag" | "prompt-only" | "none";

export interface InvocationOptions {
  /**
   * The full prompt (the runner already added the read-only sentences, R4.4). A provider that
   * reads its prompt from stdin (`Invocation.stdinPrompt`) ignores it here: the invocation can
   * then be built, and the agent started, before the prompt exists (a warm start).
   */
  prompt?: string;
  role: Role;
  readOnly: boolean;
  /** Claude: settings/<role>.json (R2.2). */
  settingsFile?: string;
  /** Codex: a file holding the output schema. */
  schemaFile?: string;
  /** Claude: the schema as an inline JSON string (`--json-schema` takes JSON, not a path). */
  schemaJson?: string;
  /** From the role file's front matter, when present. */
  model?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** Deployment extras (profile `extra_flags`); our own flags are applied after them and win. */
  extraArgs?: string[];
  cwd: string;
}

export interface Invocation {
  command: string;
  args: string[];
  readOnlyEnforcement: ReadOnlyEnforcement;
  /** Plain-language facts for the report (what was not applied and why). */
  notes: string[];
  /**
   * Present when the prompt goes to the agent's stdin in this encoding (and `args` hold none).
   * Why stdin: one argv string is capped at 128 KiB on Linux (MAX_ARG_STRLEN), below what a
   * fenced diff may take, and a process waiting on stdin can be started before its prompt.
   */
  stdinPrompt?: (prompt: string) => string;
}

export interface ParsedResult {
  /** The final result object (or text) as the CLI printed it; null when nothing parsed. */
  raw: unknown;
  /** The structured output; only a schema-valid one may count as a verdict (checked later). */
  structured: unknown | null;
  isError: boolean;
  subtype?: string;
  costUsd?: number;
  turns?: number;
}

export interface Provider {
  name: ProviderName;
  /**
   * True when the prompt goes on stdin (`Invocation.stdinPrompt`): the invocation can then be
   * built, and the agent started, before its prompt exists. False: the prompt is an argument.
   */
  promptOnStdin: boolean;
  buildInvocation(opts: InvocationOptions): Invocation;
  parseResult(stdout: string): ParsedResult;
  /** The provider's own credential variables that are set in `env` (names and values). */
  credentialEnv(env: Record<string, string | undefined>): Record<string, string>;
}
