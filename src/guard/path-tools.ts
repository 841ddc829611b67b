// Read, Edit, Write, NotebookEdit, Glob, Grep: the paths they name, normalised against the
// hook's cwd, checked segment by segment; the `.env` templates are allowed here. The one
// exception to `.claude/`: the Read tool may read the role's own definition
// `<project>/.claude/agents/<role>.md`, if no component of that path is a symlink (a symlink
// there could point at a credential file).
import { posix } from "node:path";
import type { Role } from "../roles/role-names.js";
import { shown } from "./command-context.js";
import { globPatternHit } from "./glob-pattern-check.js";
import {
  hasControlChars,
  normalisePath,
  type RealpathFn,
  resolveExisting,
  segmentsOf,
} from "./path-normalise.js";
import { classifySegments, type SecretHit } from "./secret-paths.js";

export type LstatFn = (path: string) => { isSymbolicLink(): boolean };

export interface PathToolContext {
  readonly role: Role;
  readonly cwd: string;
  /** CLAUDE_PROJECT_DIR when set, else the hook's cwd. */
  readonly projectDir: string;
  readonly home: string | undefined;
  readonly lstat: LstatFn;
  readonly realpath: RealpathFn;
}

/** A required or optional field of tool_input was missing or had the wrong type. */
export class ToolInputError extends Error {}

function field(
  input: Record<string, unknown>,
  name: string,
  required: boolean,
): string | undefined {
  const v = input[name];
  if (v === undefined || v === null) {
    if (required) throw new ToolInputError(`tool_input.${name} is missing`);
    return undefined;
  }
  if (typeof v !== "string") throw new ToolInputError(`tool_input.${name} is not a string`);
  return v;
}

function secretReason(hit: SecretHit): string {
  return `${shown(hit.what)} is a secret path (rule: ${hit.rule})`;
}

function ownRoleFile(abs: string, ctx: PathToolContext): string | null {
  const project = normalisePath(ctx.projectDir, ctx.cwd, ctx.home);
  const file = posix.join(project, ".claude", "agents", `${ctx.role}.md`);
  return abs === file ? project : null;
}

/** null: the role file may be read; else the reason it may not. */
function checkRoleFile(project: string, ctx: PathToolContext): string | null {
  const chain = [".claude", ".claude/agents", `.claude/agents/${ctx.role}.md`];
  for (const rel of chain) {
    const p = posix.join(project, rel);
    try {
      if (ctx.lstat(p).isSymbolicLink()) {
        return `${rel} is a symlink; the role definition must not be reached through one`;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null; // Read will fail
      return `could not check ${rel} for symlinks (${(error as Error).message})`;
    }
  }
  return null;
}

function checkPath(raw: string, tool: string, ctx: PathToolContext): string | null {
  if (hasControlChars(raw)) return "the path contains control characters";
  const abs = normalisePath(raw, ctx.cwd, ctx.home);
  if (tool === "Read") {
    const project = ownRoleFile(abs, ctx);
    if (project !== null) return checkRoleFile(project, ctx);
  }
  const hit = classifySegments(segmentsOf(abs), "path-tool", true);
  if (hit) return secretReason(hit);
  // a symlink in the path (e.g. committed to the repo) is judged by where it points
  const real = resolveExisting(abs, ctx.realpath);
  if (real === abs) return null;
  const viaLink = classifySegments(segmentsOf(real), "path-tool", true);
  return viaLink
    ? `${shown(raw)} leads to a secret path through a symlink (rule: ${viaLink.rule})`
    : null;
}

function checkGlob(pattern: string, base: string, ctx: PathToolContext): string | null {
  if (hasControlChars(pattern)) return "the glob pattern contains control characters";
  // the literal directories before the first wildcard, resolved like a path (`../../proc/*`)
  const segs = pattern.split("/");
  const firstWild = segs.findIndex((s) => /[*?[{(\\]/.test(s));
  const prefix = (firstWild < 0 ? segs : segs.slice(0, firstWild)).join("/");
  const prefixAbs = normalisePath(
    prefix === "" && pattern.startsWith("/") ? "/" : prefix,
    base,
    ctx.home,
  );
  const prefixHit = classifySegments(segmentsOf(prefixAbs), "path-tool", true);
  if (prefixHit) return secretReason(prefixHit);
  const hit = globPatternHit(pattern);
  if (!hit) return null;
  return "reason" in hit ? hit.reason : secretReason(hit);
}

/** The reason to refuse a path-tool call, or null. Throws ToolInputError on bad input. */
export function checkPathTool(
  tool: string,
  input: Record<string, unknown>,
  ctx: PathToolContext,
): string | null {
  switch (tool) {
    case "Read":
    case "Edit":
    case "Write":
      return checkPath(field(input, "file_path", true) ?? "", tool, ctx);
    case "NotebookEdit":
      return checkPath(field(input, "notebook_path", true) ?? "", tool, ctx);
    case "Glob": {
      const pattern = field(input, "pattern", true) ?? "";
      const path = field(input, "path", false);
      const pathReason = path === undefined ? null : checkPath(path, tool, ctx);
      if (pathReason) return pathReason;
      return checkGlob(pattern, normalisePath(path ?? ".", ctx.cwd, ctx.home), ctx);
    }
    case "Grep": {
      field(input, "pattern", true);
      const path = field(input, "path", false);
      const glob = field(input, "glob", false);
      if (path !== undefined) {
        const reason = checkPath(path, tool, ctx);
        if (reason) return reason;
      }
      if (normalisePath(path ?? ".", ctx.cwd, ctx.home) === "/") {
        return "searching / would read /proc and /sys (rule: proc)";
      }
      if (glob === undefined) return null;
      return checkGlob(glob, normalisePath(path ?? ".", ctx.cwd, ctx.home), ctx);
    }
    default:
      return null;
  }
}
