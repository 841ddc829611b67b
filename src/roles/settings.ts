/**
 * Per-role Claude Code settings (R2.2, R4.1, R4.2): `settings/<role>.json` as shipped, and the
 * effective file the runner writes for the agent, with every hook command made absolute.
 *
 * The shipped JSON names hook commands portably (`forge guard --role builder`). The agent's
 * PATH is not ours to trust, and Claude Code treats a missing hook command as "allow" (fail
 * open), so the effective settings run `<this node> <this checkout>/bin/forge.js …` by absolute,
 * shell-quoted path: Claude Code hands the command string to a shell. The guard runs through
 * its own CommonJS launcher (`bin/forge-guard.cjs`, measured: it starts close to bare node,
 * the ESM dispatcher does not). Every hook command ends in `|| exit 2`: whatever keeps node
 * from answering (a missing file: the shell's 127, a crash, a signal) becomes the one exit code
 * Claude Code treats as a refusal instead of an error it ignores.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { installRoot } from "../install-root.js";
import { checkBuilderPattern } from "../policy/builder-pattern.js";
import { isRole, type Role } from "./role-names.js";

export interface HookCommand {
  type: "command";
  command: string;
  timeout?: number;
}

export interface HookMatcher {
  matcher?: string;
  hooks: HookCommand[];
}

export interface RoleSettings {
  permissions: {
    defaultMode: string;
    disableBypassPermissionsMode: string;
    allow: string[];
    deny: string[];
  };
  hooks: Record<string, HookMatcher[]>;
  [key: string]: unknown;
}

export interface EffectiveSettingsOptions {
  /** The forgechain checkout holding settings/ and bin/forge.js (default: this installation). */
  root?: string;
  /** The node binary the hooks run with (default: the one running us). */
  node?: string;
  /**
   * Bash command patterns this run adds to the builder's allow list (the resolved config's
   * `builder.allow`: the controls' and the preset's commands, the repository's patterns).
   * Only the builder gets them: a read-only role's settings are never widened.
   */
  builderCommands?: readonly string[];
}

/**
 * Claude Code 2.1.33x only offers the Glob and Grep tools when `--allowedTools` names them
 * (settings' `permissions.allow` does not opt them in: the CLI otherwise tells the model to use
 * `find`/`grep` through Bash, which our read-only roles may not run). Permission-neutral for
 * us: every role's settings already allow both. The runner adds these argv words.
 */
export const SEARCH_TOOLS_ARGS = ["--allowedTools", "Glob,Grep"] as const;

export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

/** The shipped `settings/<role>.json`, checked for the fields fail-closed operation needs. */
export function loadRoleSettings(role: Role, root: string = installRoot()): RoleSettings {
  if (!isRole(role)) throw new SettingsError(`unknown role: ${String(role)}`);
  const file = join(root, "settings", `${role}.json`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new SettingsError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return checkShape(parsed, file);
}

/** The settings the agent runs with: the shipped file, hook commands made absolute. */
export function effectiveSettings(
  role: Role,
  options: EffectiveSettingsOptions = {},
): RoleSettings {
  const root = options.root ?? installRoot();
  const node = options.node ?? process.execPath;
  const settings = structuredClone(loadRoleSettings(role, root));
  if (role === "builder") addBuilderCommands(settings, options.builderCommands ?? []);
  for (const matchers of Object.values(settings.hooks)) {
    for (const matcher of matchers) {
      for (const hook of matcher.hooks) hook.command = absoluteCommand(hook.command, node, root);
    }
  }
  return settings;
}

/**
 * `Bash(<pattern>)` for each pattern not already allowed. Each is checked again here (the
 * config was checked when it was read): a pattern that reaches a denied command is a bug
 * upstream, and settings must not be written with it.
 */
function addBuilderCommands(settings: RoleSettings, patterns: readonly string[]): void {
  for (const pattern of patterns) {
    const refusal = checkBuilderPattern(pattern);
    if (refusal) throw new SettingsError(`builder command refused: ${refusal.message}`);
    const rule = `Bash(${pattern})`;
    if (!settings.permissions.allow.includes(rule)) settings.permissions.allow.push(rule);
  }
}

/** What a hook command ends with: any failure to answer is a refusal (exit 2), never allow. */
export const FAIL_CLOSED_SUFFIX = " || exit 2";

function absoluteCommand(command: string, node: string, root: string): string {
  const words = command.trim().split(/\s+/);
  // Only our own CLI may run as a hook: anything else in a settings file is a config error,
  // refused here rather than handed to a shell.
  if (words[0] !== "forge" || words.length < 2) {
    throw new SettingsError(`hook command must start with "forge <subcommand>": ${command}`);
  }
  const [, sub, ...rest] = words as [string, string, ...string[]];
  const entry =
    sub === "guard" ? [join(root, "bin", "forge-guard.cjs")] : [join(root, "bin", "forge.js"), sub];
  return [node, ...entry, ...rest].map(shellQuote).join(" ") + FAIL_CLOSED_SUFFIX;
}

/** POSIX shell quoting: safe words stay bare, anything else goes in single quotes. */
export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function checkShape(value: unknown, file: string): RoleSettings {
  const fail = (what: string): never => {
    throw new SettingsError(`${file}: ${what}`);
  };
  if (typeof value !== "object" || value === null) return fail("not a JSON object");
  const v = value as Partial<RoleSettings>;
  const p = v.permissions;
  if (!p || typeof p !== "object") return fail("permissions missing");
  // These two make the allowlist mean something; a file without them is not ours to run.
  if (p.defaultMode !== "dontAsk") fail('permissions.defaultMode must be "dontAsk"');
  if (p.disableBypassPermissionsMode !== "disable") {
    fail('permissions.disableBypassPermissionsMode must be "disable"');
  }
  if (!isStringArray(p.allow) || !isStringArray(p.deny)) fail("allow/deny must be string lists");
  if (!v.hooks || typeof v.hooks !== "object") return fail("hooks missing");
  for (const [event, matchers] of Object.entries(v.hooks)) {
    if (!Array.isArray(matchers)) fail(`hooks.${event} must be a list`);
    for (const m of matchers as HookMatcher[]) {
      if (!m || !Array.isArray(m.hooks)) fail(`hooks.${event}: each matcher needs hooks[]`);
      for (const h of m.hooks) {
        if (h?.type !== "command" || typeof h.command !== "string") {
          fail(`hooks.${event}: each hook needs type "command" and a command`);
        }
      }
    }
  }
  return v as RoleSettings;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((x) => typeof x === "string");
}
