import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { type ResolveInput, resolveConfig } from "./cascade.js";
import type { DeploymentConfig } from "./deployment.js";
import { type ParsedForgeConfig, parseForgeConfig } from "./forge-config-parse.js";
import { FORGE_CONFIG_PATH } from "./forge-config-schema.js";
import { ConfigError } from "./issues.js";
import { MAX_PRESET_TEXT_BYTES, PRESET_TEXT_FILES } from "./presets.js";
import type { ResolvedConfig } from "./resolved-config.js";
import { MAX_CONFIG_BYTES } from "./yaml-source.js";

/** Runs `git <args>` in the repository; the caller's adapter (execa, child_process). */
export type GitRunner = (
  args: string[],
) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

export interface ConfigSource {
  /** "git": read from a commit of the default branch; "worktree": files on disk. */
  from: "git" | "worktree";
  /** The ref read (e.g. "origin/main"), null for the working tree. */
  ref: string | null;
  /** The text of .github/forge.yml, null when the repository has none. */
  text: string | null;
  /** Entries at the repository root (for stack detection), from the same ref. */
  rootFiles: string[];
  /**
   * The text of the root files a stack preset reads (PRESET_TEXT_FILES: pyproject.toml,
   * requirements.txt, …), from the same ref; absent ones (and larger ones) are left out.
   */
  rootTexts?: Record<string, string>;
  /** One sentence on where the config came from, for the user. */
  note: string;
}

// A repository's own .git/config can name programs git runs (core.fsmonitor, hooks, pager).
// None of the commands below should start one, but we switch them off rather than rely on it.
const SAFE = ["--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"];

/**
 * R8.1: the config is read from the default branch only — what a pull request changes in
 * .github/forge.yml has no effect until it is merged. The default branch is origin/HEAD when
 * the clone has a remote, else the branch HEAD is on. Only a directory that is not the root
 * of a git repository is read from the working tree, and the note says so.
 */
export async function readConfigSource(repoDir: string, git: GitRunner): Promise<ConfigSource> {
  const run = (args: string[]) => git([...SAFE, ...args]);
  const top = await run(["rev-parse", "--show-toplevel"]);
  const isRoot = top.exitCode === 0 && samePath(top.stdout.trim(), repoDir);
  if (!isRoot) {
    const why =
      top.exitCode === 0
        ? `${repoDir} is inside the git repository ${top.stdout.trim()} but not its root`
        : `${repoDir} is not a git repository`;
    return { ...readWorktree(repoDir), note: `${why}: read from the working tree` };
  }
  let ref = (
    await run(["symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"])
  ).stdout.trim();
  let which = "the remote's default branch";
  if (!ref) {
    ref = (await run(["symbolic-ref", "-q", "--short", "HEAD"])).stdout.trim();
    which = "the checked-out branch (no origin/HEAD)";
  }
  if (!ref) {
    ref = "HEAD";
    which = "the detached HEAD (no branch)";
  }
  const commit = await run(["rev-parse", "--verify", "-q", `${ref}^{commit}`]);
  if (commit.exitCode !== 0) {
    return { from: "git", ref, text: null, rootFiles: [], note: `${ref} has no commits yet` };
  }
  const rootFiles = (await run(["ls-tree", "--name-only", "-z", ref])).stdout
    .split("\0")
    .filter(Boolean);
  const entry =
    (await run(["ls-tree", "-z", ref, "--", FORGE_CONFIG_PATH])).stdout.split("\0")[0] ?? "";
  const note = `read from ${ref}, ${which}; uncommitted and unmerged changes do not count`;
  const rootTexts = await readPresetTexts(run, ref, rootFiles);
  if (entry === "") return { from: "git", ref, text: null, rootFiles, rootTexts, note };
  const [mode, type, sha] = entry.split(/[ \t]/);
  if (type !== "blob" || (mode !== "100644" && mode !== "100755") || !sha) {
    throw sourceError(
      `${FORGE_CONFIG_PATH} on ${ref} is not a regular file (mode ${mode})`,
      "commit it as a plain file, not a symlink or folder",
    );
  }
  const size = Number((await run(["cat-file", "-s", sha])).stdout.trim());
  if (!(size <= MAX_CONFIG_BYTES)) {
    throw sourceError(
      `${FORGE_CONFIG_PATH} on ${ref} is ${size} bytes, more than ${MAX_CONFIG_BYTES}`,
      "keep the configuration short",
    );
  }
  const blob = await run(["cat-file", "blob", sha]);
  if (blob.exitCode !== 0)
    throw sourceError(
      `cannot read ${FORGE_CONFIG_PATH} on ${ref}: ${blob.stderr.trim()}`,
      "check the repository",
    );
  return { from: "git", ref, text: blob.stdout, rootFiles, rootTexts, note };
}

/** The preset text files at the root of `ref`: regular files up to MAX_PRESET_TEXT_BYTES. */
async function readPresetTexts(
  run: GitRunner,
  ref: string,
  rootFiles: readonly string[],
): Promise<Record<string, string>> {
  const wanted = PRESET_TEXT_FILES.filter((name) => rootFiles.includes(name));
  const texts: Record<string, string> = {};
  if (wanted.length === 0) return texts;
  // One listing gives mode, type, object and size of every wanted file.
  const listing = (await run(["ls-tree", "-l", "-z", ref, "--", ...wanted])).stdout;
  for (const line of listing.split("\0").filter(Boolean)) {
    const m = /^(\d+) blob ([0-9a-f]+) +(\d+)\t(.+)$/.exec(line);
    if (!m) continue; // a folder, a submodule
    const [, mode, sha, size, name] = m as unknown as [string, string, string, string, string];
    if (mode !== "100644" && mode !== "100755") continue; // a symlink
    if (!(Number(size) <= MAX_PRESET_TEXT_BYTES)) continue;
    const blob = await run(["cat-file", "blob", sha]);
    if (blob.exitCode === 0) texts[name] = blob.stdout;
  }
  return texts;
}

function readWorktree(repoDir: string): Omit<ConfigSource, "note"> {
  const file = join(repoDir, FORGE_CONFIG_PATH);
  let text: string | null = null;
  try {
    const stat = lstatSync(file);
    if (!stat.isFile())
      throw sourceError(
        `${FORGE_CONFIG_PATH} is not a regular file`,
        "make it a plain file, not a symlink",
      );
    if (stat.size > MAX_CONFIG_BYTES)
      throw sourceError(
        `${FORGE_CONFIG_PATH} is larger than ${MAX_CONFIG_BYTES} bytes`,
        "keep it short",
      );
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const rootFiles = readdirSync(repoDir);
  const rootTexts: Record<string, string> = {};
  for (const name of PRESET_TEXT_FILES.filter((n) => rootFiles.includes(n))) {
    const stat = lstatSync(join(repoDir, name));
    if (stat.isFile() && stat.size <= MAX_PRESET_TEXT_BYTES) {
      rootTexts[name] = readFileSync(join(repoDir, name), "utf8");
    }
  }
  return { from: "worktree", ref: null, text, rootFiles, rootTexts };
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function sourceError(message: string, fix: string): ConfigError {
  return new ConfigError([
    { severity: "error", code: "config_source", file: FORGE_CONFIG_PATH, path: "", message, fix },
  ]);
}

/** Parse + cascade + floor for a source. Throws ConfigError with every problem. */
export function resolveFromSource(
  source: ConfigSource,
  deployment?: DeploymentConfig,
): { parsed: ParsedForgeConfig | null; config: ResolvedConfig } {
  const parsed = source.text === null ? null : parseForgeConfig(source.text);
  const input: ResolveInput = {
    repo: parsed,
    rootFiles: source.rootFiles,
    ...(source.rootTexts ? { rootTexts: source.rootTexts } : {}),
  };
  if (deployment) input.deployment = deployment;
  return { parsed, config: resolveConfig(input) };
}
