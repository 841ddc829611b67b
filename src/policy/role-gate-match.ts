// R7.3 role gate, the matching half: does a tool call match one of the profile's
// `disallowed_tools`? Kept apart from the ledger (role-gate.ts) because the guard hook runs this
// on every tool call and must not pay for crypto and the ledger unless a call is refused.
// picomatch is required on first use: only path patterns on file tools need it.
import { createRequire } from "node:module";
import { isAbsolute, posix, relative } from "node:path";
import type Picomatch from "picomatch";
import type { Profile } from "./profile-schema.js";
import { readShell } from "./shell-segments.js";

let picomatchModule: typeof Picomatch | undefined;
function pm(): typeof Picomatch {
  picomatchModule ??= createRequire(import.meta.url)("picomatch") as typeof Picomatch;
  return picomatchModule;
}

// Every built-in tool that changes a file. A path-scoped Edit(…) or Write(…) deny covers all
// of them: Claude Code itself ignores Write(path) rules (FACTS.md), and "Edit denied but
// Write allowed" would be no protection at all.
const FILE_WRITE_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
const FILE_READ_TOOLS = new Set(["Read", "Grep", "Glob", "LS"]);

interface ParsedPattern {
  tool: string;
  arg?: string;
}

function parsePattern(pattern: string): ParsedPattern {
  const open = pattern.indexOf("(");
  if (open < 0 || !pattern.endsWith(")")) return { tool: pattern.trim() };
  return { tool: pattern.slice(0, open).trim(), arg: pattern.slice(open + 1, -1) };
}

export interface MatchOptions {
  /** Workspace root: absolute file paths inside it are matched relative to it. */
  cwd?: string;
}

/**
 * The role gate: the first `disallowed_tools` pattern of `profile` that this tool call
 * matches, or null. Forms: `Tool` (any call), `Edit(glob)` / `Write(glob)` (any file-writing
 * tool on a matching path), `Read(glob)`, `Bash(prefix:*)`, `Bash(prefix *)`, `Bash(exact)`,
 * `WebFetch(domain:host)`, `mcp__server` (every tool of that server). An argument form this
 * gate cannot interpret matches the whole tool — a deny list errs on the side of denying.
 */
export function matchDisallowed(
  profile: Pick<Profile, "disallowed_tools">,
  toolName: string,
  toolInput: unknown,
  options: MatchOptions = {},
): string | null {
  const input = (toolInput && typeof toolInput === "object" ? toolInput : {}) as Record<
    string,
    unknown
  >;
  for (const pattern of profile.disallowed_tools) {
    if (matches(parsePattern(pattern), toolName, input, options)) return pattern;
  }
  return null;
}

function matches(
  p: ParsedPattern,
  tool: string,
  input: Record<string, unknown>,
  o: MatchOptions,
): boolean {
  const family =
    FILE_WRITE_TOOLS.has(p.tool) && FILE_WRITE_TOOLS.has(tool)
      ? "write"
      : p.tool === "Read" && FILE_READ_TOOLS.has(tool)
        ? "read"
        : p.tool === tool
          ? "same"
          : p.tool.startsWith("mcp__") && tool.startsWith(`${p.tool}__`)
            ? "same"
            : null;
  if (!family) return false;
  if (p.arg === undefined || p.arg === "*" || p.arg === "**")
    return family !== "read" || tool === "Read";
  if (family === "write" || family === "read") return pathMatches(p.arg, tool, input, o);
  if (tool === "Bash") return bashMatches(p.arg, input.command);
  if (tool === "WebFetch" && p.arg.startsWith("domain:"))
    return domainMatches(p.arg.slice(7), input.url);
  if (tool === "Skill") return typeof input.skill === "string" ? input.skill === p.arg : true;
  return true;
}

function pathOf(tool: string, input: Record<string, unknown>): string | undefined {
  const candidate = input.file_path ?? input.notebook_path ?? input.path;
  if (typeof candidate === "string") return candidate;
  // Grep/Glob without a path search the whole working directory.
  return tool === "Grep" || tool === "Glob" || tool === "LS" ? "." : undefined;
}

function pathMatches(
  glob: string,
  tool: string,
  input: Record<string, unknown>,
  o: MatchOptions,
): boolean {
  const raw = pathOf(tool, input);
  if (raw === undefined) return true; // a file tool with no path: cannot tell, deny
  const path = normalisePath(raw, o.cwd);
  const pattern = glob.replace(/^\.\//, "").replace(/^\/\//, "/");
  const isMatch = pm()(pattern, { dot: true, nocase: true });
  if (isMatch(path) || isMatch(`${path}/`)) return true;
  // A pattern without a slash matches a file name at any depth, as in Claude Code rules.
  if (!pattern.includes("/") && pm()(pattern, { dot: true, nocase: true, basename: true })(path))
    return true;
  if (tool === "Grep" || tool === "Glob" || tool === "LS") {
    // Searching a folder reads everything below it: deny when the folder contains the
    // pattern's base (or is the workspace root).
    const base = pm().scan(pattern).base.replace(/\/$/, "");
    return path === "." || path === "" || base === path || base.startsWith(`${path}/`);
  }
  return false;
}

function normalisePath(raw: string, cwd?: string): string {
  let path = raw.replace(/\\/g, "/");
  if (cwd && isAbsolute(path)) {
    const rel = relative(cwd, path).replace(/\\/g, "/");
    if (!rel.startsWith("..") && !isAbsolute(rel)) path = rel;
  }
  const normal = posix.normalize(path);
  return normal === "./" ? "." : normal.replace(/^\.\//, "").replace(/\/$/, "");
}

function bashMatches(arg: string, command: unknown): boolean {
  if (typeof command !== "string") return true;
  const reading = readShell(command);
  if (!reading.ok) return true; // unreadable: assume it does what the pattern forbids
  const rule = arg.trim();
  for (const words of reading.commands) {
    const line = words.join(" ");
    if (rule.endsWith(":*") || rule.endsWith(" *")) {
      const prefix = rule.slice(0, -2).trim().replace(/\s+/g, " ");
      if (line === prefix || line.startsWith(`${prefix} `)) return true;
    } else if (rule.endsWith("*")) {
      if (line.startsWith(rule.slice(0, -1))) return true;
    } else if (line === rule.replace(/\s+/g, " ")) return true;
  }
  return false;
}

function domainMatches(domain: string, url: unknown): boolean {
  if (typeof url !== "string") return true;
  try {
    const host = new URL(url).hostname.toLowerCase();
    const want = domain.toLowerCase();
    return host === want || host.endsWith(`.${want}`);
  } catch {
    return true;
  }
}
