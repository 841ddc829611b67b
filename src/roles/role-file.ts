import { constants, type Stats } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { isRole, type Role } from "./role-names.js";

/**
 * A role definition file (R2.3): Markdown with optional YAML front matter between leading
 * `---` lines. Only `skills:` and `model:` are read; other keys (Claude Code's `name`,
 * `description`, `tools`, …) are allowed and ignored — tools come from settings/<role>.json,
 * never from a role file.
 */
export type RoleDefinition = {
  /** The body without front matter, trimmed. */
  prompt: string;
  /** Skill names as written (deduplicated, order kept); slugs are checked when materialised. */
  skills: string[];
  /** Passed to the agent as `--model`; absent means the CLI default. */
  model?: string;
  /** Where the text came from (a path or a label), for messages and provenance. */
  source: string;
};

/** A role file that cannot be used; the message names the source and what was expected. */
export class RoleFileError extends Error {
  override readonly name = "RoleFileError";
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`${source}: ${detail}`);
  }
}

/** Role files are prompts, not data dumps; a huge one is a mistake or an attack on the budget. */
export const MAX_ROLE_FILE_CHARS = 256 * 1024;

/**
 * `model:` becomes a separate argv entry after `--model`. A value starting with `-` could be
 * read as another flag, so only plain model names and ids are allowed (`sonnet`,
 * `claude-opus-4-1`, `opus[1m]`, Bedrock/Vertex ids with `.`, `:`, `/`, `@`).
 */
const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,127}$/;

const OPENING = /^---[ \t]*$/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

function splitFrontMatter(text: string, source: string): { yaml: string | null; body: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!OPENING.test(lines[0] ?? "")) return { yaml: null, body: lines.join("\n") };
  const end = lines.findIndex((line, index) => index > 0 && CLOSING.test(line));
  if (end === -1) {
    throw new RoleFileError(source, "front matter opened with `---` but never closed with `---`");
  }
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

function parseSkills(value: unknown, source: string): string[] {
  if (value === undefined || value === null) return [];
  let names: string[];
  if (typeof value === "string") {
    names = value.split(/[\s,]+/);
  } else if (Array.isArray(value)) {
    names = value.map((item, index) => {
      if (typeof item !== "string") {
        throw new RoleFileError(
          source,
          `skills[${index}] must be a string (a skill name), got ${describe(item)}`,
        );
      }
      return item;
    });
  } else {
    throw new RoleFileError(
      source,
      `skills must be a list of names or a comma/space-separated string, got ${describe(value)}`,
    );
  }
  return [...new Set(names.map((name) => name.trim()).filter((name) => name !== ""))];
}

function parseModel(value: unknown, source: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new RoleFileError(source, `model must be a string, got ${describe(value)}`);
  }
  const model = value.trim();
  // Claude Code agent files use `inherit` for "the parent's model": for us that is the default.
  if (model === "" || model === "inherit") return undefined;
  if (!MODEL_PATTERN.test(model)) {
    throw new RoleFileError(
      source,
      `model ${JSON.stringify(model.slice(0, 60))} is not a model name (letters, digits and . _ : / @ [ ] -, not starting with -)`,
    );
  }
  return model;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`;
}

/** Parse a role file's text. Throws RoleFileError on malformed front matter or wrong types. */
export function parseRoleFile(text: string, source: string): RoleDefinition {
  if (text.length > MAX_ROLE_FILE_CHARS) {
    throw new RoleFileError(source, `larger than ${MAX_ROLE_FILE_CHARS} characters`);
  }
  const { yaml, body } = splitFrontMatter(text, source);
  let meta: Record<string, unknown> = {};
  if (yaml !== null) {
    let parsed: unknown;
    try {
      parsed = parseYaml(yaml, { uniqueKeys: true, maxAliasCount: 50 });
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new RoleFileError(source, `front matter is not valid YAML: ${detail}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new RoleFileError(
          source,
          `front matter must be a mapping (key: value lines), got ${describe(parsed)}`,
        );
      }
      meta = parsed as Record<string, unknown>;
    }
  }
  const prompt = body.trim();
  if (prompt === "") {
    throw new RoleFileError(source, "the role prompt (the text after the front matter) is empty");
  }
  const definition: RoleDefinition = { prompt, skills: parseSkills(meta.skills, source), source };
  const model = parseModel(meta.model, source);
  if (model !== undefined) definition.model = model;
  return definition;
}

/** Which of the three places a role definition came from (R2.3). */
export type RoleOrigin = "handbook" | "repo" | "default";

export type LoadedRoleDefinition = RoleDefinition & { origin: RoleOrigin };

/**
 * Read `<baseDir>/<parts…>` without following a symlink anywhere below baseDir: a repository
 * could point `.claude/agents/<role>.md` (or `.claude` itself) at a credential on the runner,
 * and the file's text goes into a prompt. Returns null when the file (or a directory on the
 * way) does not exist; throws RoleFileError for a symlink or a non-regular file.
 */
async function readWithoutSymlinks(baseDir: string, parts: string[]): Promise<string | null> {
  const display = parts.join("/");
  let path = baseDir;
  for (const [index, part] of parts.entries()) {
    path = join(path, part);
    let info: Stats;
    try {
      info = await lstat(path);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    const shown = parts.slice(0, index + 1).join("/");
    if (info.isSymbolicLink()) {
      throw new RoleFileError(
        join(baseDir, display),
        `${shown} is a symlink; role files are read only from real files (a link could point at a credential)`,
      );
    }
    const last = index === parts.length - 1;
    if (!last && !info.isDirectory()) return null;
    if (last && !info.isFile()) {
      throw new RoleFileError(join(baseDir, display), "is not a regular file");
    }
  }
  // O_NOFOLLOW closes the gap between the lstat above and the open for the last component.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new RoleFileError(path, "is not a regular file");
    if (info.size > MAX_ROLE_FILE_CHARS * 4) {
      throw new RoleFileError(path, `larger than ${MAX_ROLE_FILE_CHARS} characters`);
    }
    return await handle.readFile({ encoding: "utf8" });
  } finally {
    await handle.close();
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * R2.3: the role definition for `role`.
 * - `handbookDir` given (the handbook repo, checked out by the caller at its pinned ref):
 *   `docs/agents/seeds/<role>.md` there, and nothing else — a handbook without the role is an
 *   error, never a silent fall back to the (untrusted) target repository.
 * - otherwise the target repo's `.claude/agents/<role>.md` when it exists;
 * - otherwise the built-in default `<defaultsDir>/<role>.md` (the install's `roles/`).
 */
export async function loadRoleDefinition(options: {
  role: Role;
  repoDir: string;
  defaultsDir: string;
  handbookDir?: string;
}): Promise<LoadedRoleDefinition> {
  const { role, repoDir, defaultsDir, handbookDir } = options;
  // The role name becomes a path component: only the four known names.
  if (!isRole(role)) {
    throw new RoleFileError("role", `unknown role ${JSON.stringify(String(role).slice(0, 40))}`);
  }
  const file = `${role}.md`;

  if (handbookDir !== undefined) {
    const parts = ["docs", "agents", "seeds", file];
    const text = await readWithoutSymlinks(handbookDir, parts);
    const source = join(handbookDir, ...parts);
    if (text === null) {
      throw new RoleFileError(source, `the handbook has no role definition for ${role}`);
    }
    return { ...parseRoleFile(text, source), origin: "handbook" };
  }

  const repoParts = [".claude", "agents", file];
  const repoText = await readWithoutSymlinks(repoDir, repoParts);
  if (repoText !== null) {
    return { ...parseRoleFile(repoText, join(repoDir, ...repoParts)), origin: "repo" };
  }

  const defaultText = await readWithoutSymlinks(defaultsDir, [file]);
  const defaultSource = join(defaultsDir, file);
  if (defaultText === null) {
    throw new RoleFileError(defaultSource, `no built-in role definition for ${role}`);
  }
  return { ...parseRoleFile(defaultText, defaultSource), origin: "default" };
}
