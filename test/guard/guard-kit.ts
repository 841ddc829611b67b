// Shared helpers for the guard's unit tests: a real lazy tree-sitter parser, the real file
// system, and temp project directories.
import { lstatSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lazyBashParser } from "../../src/guard/bash-parser.js";
import { decideToolCall, type GuardDeps } from "../../src/guard/decide.js";
import { realDirReader } from "../../src/guard/glob-expand.js";
import type { Role } from "../../src/roles/role-names.js";

const parser = lazyBashParser();

export function makeDeps(env: GuardDeps["env"] = { HOME: "/home/agent" }): GuardDeps {
  return { parser, lstat: lstatSync, realpath: realpathSync, dirs: realDirReader, env };
}

export interface CallOptions {
  readonly cwd?: string;
  readonly role?: Role;
  readonly env?: GuardDeps["env"];
}

/** The deny reason for a tool call, or null for "no decision". */
export async function decide(
  tool: string,
  toolInput: Record<string, unknown>,
  opts: CallOptions = {},
): Promise<string | null> {
  const decision = await decideToolCall(
    {
      hook_event_name: "PreToolUse",
      tool_name: tool,
      tool_input: toolInput,
      cwd: opts.cwd ?? "/work/repo",
    },
    opts.role ?? "builder",
    makeDeps(opts.env),
  );
  return decision?.deny ?? null;
}

export function bash(command: string, opts: CallOptions = {}): Promise<string | null> {
  return decide("Bash", { command }, opts);
}

export function tempDir(prefix = "forge-guard-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
