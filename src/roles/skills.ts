import type { Dirent, Stats } from "node:fs";
import { chmod, copyFile, lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";

/**
 * R2.4: copy only the skills a role names into the agent's `~/.claude/skills/`. Offering every
 * skill would cost tokens for descriptions in every run and widen what the agent can load.
 */

export const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Per-skill limits: a skill is a few instruction files, not a data set. */
const MAX_SKILL_FILES = 200;
const MAX_SKILL_BYTES = 2 * 1024 * 1024;
const MAX_SKILL_DEPTH = 8;
const MAX_NAME_LENGTH = 64;

export type SkillsResult = {
  /** Names copied into `<home>/.claude/skills/<name>/`, in the order they were asked for. */
  installed: string[];
  /** Valid names found in no catalog: reported and skipped, never fatal. */
  missing: string[];
  /** Names refused outright (not a slug, over a limit), with the reason. */
  refused: Array<{ name: string; reason: string }>;
  /** Things skipped inside otherwise installed skills (symlinks, special files). */
  warnings: string[];
};

/** The HOME cannot take skills safely (e.g. `~/.claude` is a symlink). */
export class SkillsError extends Error {
  override readonly name = "SkillsError";
}

export function skillNameProblem(name: string): string | null {
  if (name === "") return "an empty skill name";
  if (name.length > MAX_NAME_LENGTH) return `longer than ${MAX_NAME_LENGTH} characters`;
  if (!SKILL_NAME.test(name)) {
    return "not a slug (lower-case letters, digits and single hyphens: ^[a-z0-9]+(-[a-z0-9]+)*$)";
  }
  return null;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

/** A directory under `home` that we create or reuse, refusing to write through a symlink. */
async function ensureRealDir(path: string): Promise<void> {
  const info = await lstatOrNull(path);
  if (info === null) {
    await mkdir(path, { mode: 0o700 });
    return;
  }
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new SkillsError(`${path} is not a real directory; refusing to write skills through it`);
  }
}

/** Where `<catalog>/<name>/SKILL.md` exists as real dir + real file, or a reason it is unusable. */
async function findSkill(
  name: string,
  catalogDirs: string[],
  warnings: string[],
): Promise<string | null> {
  for (const catalog of catalogDirs) {
    const dir = join(catalog, name);
    const dirInfo = await lstatOrNull(dir);
    if (dirInfo === null) continue;
    if (dirInfo.isSymbolicLink() || !dirInfo.isDirectory()) {
      warnings.push(`skill ${name}: ${dir} is not a real directory (symlink?); not used`);
      continue;
    }
    const fileInfo = await lstatOrNull(join(dir, "SKILL.md"));
    if (fileInfo === null) continue;
    if (!fileInfo.isFile()) {
      warnings.push(`skill ${name}: ${dir}/SKILL.md is not a regular file (symlink?); not used`);
      continue;
    }
    return dir;
  }
  return null;
}

type CopyBudget = { files: number; bytes: number };

class OverLimit extends Error {}

/** Copy regular files and directories; symlinks and special files are skipped with a warning. */
async function copyTree(
  from: string,
  to: string,
  rel: string,
  depth: number,
  budget: CopyBudget,
  warn: (message: string) => void,
): Promise<void> {
  if (depth > MAX_SKILL_DEPTH) throw new OverLimit(`nested deeper than ${MAX_SKILL_DEPTH} levels`);
  await mkdir(to, { mode: 0o700 });
  const entries: Dirent[] = await readdir(from, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    const shown = rel === "" ? entry.name : `${rel}/${entry.name}`;
    // readdir's type comes from lstat semantics: a symlink is reported as a symlink.
    if (entry.isSymbolicLink()) {
      warn(`skipped symlink ${shown}`);
    } else if (entry.isDirectory()) {
      await copyTree(source, target, shown, depth + 1, budget, warn);
    } else if (entry.isFile()) {
      const info = await lstat(source);
      if (!info.isFile()) {
        warn(`skipped ${shown} (changed while copying)`);
        continue;
      }
      budget.files += 1;
      budget.bytes += info.size;
      if (budget.files > MAX_SKILL_FILES) throw new OverLimit(`more than ${MAX_SKILL_FILES} files`);
      if (budget.bytes > MAX_SKILL_BYTES) throw new OverLimit(`more than ${MAX_SKILL_BYTES} bytes`);
      await copyFile(source, target);
      // Keep the execute bit for helper scripts; drop setuid/setgid/sticky and group/other write.
      await chmod(target, info.mode & 0o755);
    } else {
      warn(`skipped ${shown} (not a regular file or directory)`);
    }
  }
}

/**
 * Materialise the named skills into `<home>/.claude/skills/<name>/`, each from the first
 * catalog dir that holds `<name>/SKILL.md`. Unnamed skills are never copied.
 * Throws SkillsError only when the HOME itself is unsafe to write into.
 */
export async function materialiseSkills(options: {
  names: readonly string[];
  catalogDirs: readonly string[];
  home: string;
}): Promise<SkillsResult> {
  const result: SkillsResult = { installed: [], missing: [], refused: [], warnings: [] };
  const catalogs = options.catalogDirs.map((dir) => resolve(dir));
  const home = resolve(options.home);
  let skillsDir: string | null = null;

  for (const name of new Set(options.names)) {
    const problem = skillNameProblem(name);
    if (problem !== null) {
      result.refused.push({
        name,
        reason: `skill name ${JSON.stringify(name)} refused: ${problem}`,
      });
      continue;
    }
    const found = await findSkill(name, catalogs, result.warnings);
    if (found === null) {
      result.missing.push(name);
      continue;
    }
    if (skillsDir === null) {
      await ensureRealDir(join(home, ".claude"));
      skillsDir = join(home, ".claude", "skills");
      await ensureRealDir(skillsDir);
    }
    const target = join(skillsDir, name);
    // A leftover from an earlier run (or a planted link) is replaced, never written through.
    await rm(target, { recursive: true, force: true });
    const skillWarnings: string[] = [];
    try {
      await copyTree(found, target, "", 0, { files: 0, bytes: 0 }, (message) =>
        skillWarnings.push(`skill ${name}: ${message}`),
      );
    } catch (error) {
      await rm(target, { recursive: true, force: true });
      if (!(error instanceof OverLimit)) throw error;
      result.refused.push({ name, reason: `skill ${name} refused: ${error.message}` });
      continue;
    }
    result.warnings.push(...skillWarnings);
    result.installed.push(name);
  }
  return result;
}
