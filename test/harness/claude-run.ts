/**
 * Runs the REAL Claude Code CLI (node_modules/.bin/claude) headless against the scripted model
 * server, with the argv a role step uses (R2.1):
 *
 *   claude -p <prompt> --permission-mode dontAsk --settings <file> --setting-sources user
 *          --output-format json [--json-schema <schema>] [--allowedTools Glob,Grep]
 *
 * The environment is built from nothing: a fresh HOME, the server as ANTHROPIC_BASE_URL, an
 * obviously fake key, no telemetry or updater, git identity from env (no global config read).
 * Nothing of the developer's own Claude login or tokens can leak in.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ModelServer,
  type RecordedRequest,
  type Script,
  startModelServer,
  type ToolResult,
} from "./model-server.js";
import { GIT_ENV } from "./temp-repo.js";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CLAUDE_BIN = join(REPO_ROOT, "node_modules", ".bin", "claude");

/** What `--output-format json` prints (the fields we use; the CLI sends more). */
export interface ClaudeJson {
  type: string;
  subtype: string;
  is_error: boolean;
  result?: string;
  /** Absent (not null) in 2.1.332 when the model never made a valid StructuredOutput call. */
  structured_output?: unknown;
  num_turns: number;
  permission_denials: Array<{ tool_name: string; tool_use_id: string; tool_input: unknown }>;
  session_id: string;
  [key: string]: unknown;
}

export interface ClaudeRunOptions {
  script: Script;
  /** Working directory: the repository the agent works on. */
  cwd: string;
  /** Settings object, written to a file outside HOME and cwd (the agent must not edit it). */
  settings: object;
  prompt?: string;
  /** `--json-schema` value (the schema's JSON text). */
  jsonSchema?: string;
  /** Reuse a running server (its script is replaced and its records reset); else one per run. */
  server?: ModelServer;
  /** Extra environment for the CLI and, through it, the hooks (e.g. FORGE_BASE_REF). */
  env?: Record<string, string>;
  /** Extra argv words, appended after ours (e.g. SEARCH_TOOLS_ARGS, --model). */
  extraArgs?: readonly string[];
  /** Use this HOME (the caller owns and removes it) instead of a fresh one per run. */
  home?: string;
  /** Called with the HOME before the CLI starts (plant files an attack points at). */
  prepareHome?: (home: string) => void;
  /** Hard stop for a hung CLI; a timed-out run reports timedOut, it never hangs the suite. */
  timeoutMs?: number;
  claudeBin?: string;
}

export interface ClaudeRunResult {
  exitCode: number | null;
  timedOut: boolean;
  /** The parsed stdout, when it was one JSON object. */
  json: ClaudeJson | undefined;
  stdout: string;
  stderr: string;
  toolResults: ToolResult[];
  requests: RecordedRequest[];
  unknownEndpoints: string[];
  durationMs: number;
  argv: string[];
}

export const DEFAULT_PROMPT = "forge scripted run: follow the script.";

export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRunResult> {
  const prompt = options.prompt ?? DEFAULT_PROMPT;
  const script: Script = { mainMarker: prompt, ...options.script };
  const ownServer = options.server === undefined;
  const server = options.server ?? (await startModelServer(script));
  if (!ownServer) {
    server.setScript(script);
    server.reset();
  }
  const scratch = mkdtempSync(join(tmpdir(), "forge-claude-"));
  const home = options.home ?? join(scratch, "home");
  mkdirSync(home, { recursive: true });
  const settingsFile = join(scratch, "settings.json");
  writeFileSync(settingsFile, JSON.stringify(options.settings, null, 2));
  options.prepareHome?.(home);

  const argv = [
    "-p",
    prompt,
    "--permission-mode",
    "dontAsk",
    "--settings",
    settingsFile,
    "--setting-sources",
    "user",
    "--output-format",
    "json",
    ...(options.jsonSchema === undefined ? [] : ["--json-schema", options.jsonSchema]),
    ...(options.extraArgs ?? []),
  ];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    USER: "forge",
    LANG: "C.UTF-8",
    SHELL: "/bin/bash",
    TMPDIR: scratch,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "obviously-fake",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...GIT_ENV,
    ...options.env,
  };

  const started = Date.now();
  try {
    const run = await spawnCollect(options.claudeBin ?? CLAUDE_BIN, argv, {
      cwd: options.cwd,
      env,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    let json: ClaudeJson | undefined;
    try {
      json = JSON.parse(run.stdout) as ClaudeJson;
    } catch {
      json = undefined;
    }
    return {
      ...run,
      json,
      toolResults: [...server.toolResults],
      requests: [...server.requests],
      unknownEndpoints: [...server.unknown],
      durationMs: Date.now() - started,
      argv,
    };
  } finally {
    if (ownServer) await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function spawnCollect(
  bin: string,
  argv: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ exitCode: number | null; timedOut: boolean; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, argv, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // own process group: a timeout kills the hooks it started as well
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, opts.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ exitCode: code, timedOut, stdout, stderr });
    });
  });
}
