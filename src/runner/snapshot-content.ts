// R8.5: what a run freezes when it starts — the role definitions (prompt, skills, model and
// where they came from), the effective settings, the output schemas, the skills' content
// digests and the provider. The runner uses these frozen values, so a later edit of a role
// file or a settings file does not change a chain that is already running.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builderAllowPatterns } from "../policy/builder-commands.js";
import type { ResolvedConfig } from "../policy/resolved-config.js";
import { loadRoleDefinition } from "../roles/role-file.js";
import { ROLES, type Role } from "../roles/role-names.js";
import { effectiveSettings } from "../roles/settings.js";
import { git } from "./git.js";

export interface FrozenRole {
  prompt: string;
  skills: string[];
  model?: string;
  origin: string;
  source: string;
  settings: unknown;
  schema: unknown;
  skillDigests: Record<string, string | null>;
}

export interface SnapshotInputs {
  installRoot: string;
  /** The repository the run clones (a local path or URL). */
  remote: string;
  /** The ref whose `.claude/agents/` is the fallback for role files. */
  ref: string;
  handbookDir?: string;
  provider: { name: string; version: string };
  /** The frozen role registry (revision and digest), when policy resolved one. */
  registry?: unknown;
  /**
   * The repository's resolved config: its `builder.allow` (the controls' and the preset's
   * commands, the repository's patterns) is written into the builder's frozen settings.
   * Without it the builder gets its shipped list only.
   */
  config?: Pick<ResolvedConfig, "builder">;
}

export async function buildSnapshotContent(
  inputs: SnapshotInputs,
): Promise<Record<string, unknown>> {
  const tmp = await mkdtemp(join(tmpdir(), "forge-snapshot-"));
  try {
    const repoDir = join(tmp, "repo");
    await git(
      [
        "clone",
        "--quiet",
        "--depth",
        "1",
        "--no-tags",
        "--branch",
        inputs.ref,
        "--",
        inputs.remote,
        repoDir,
      ],
      {
        cwd: tmp,
        allowFailure: true,
      },
    ).then(async (r) => {
      // A sha (not a branch) cannot be cloned with --branch: clone fully and check it out.
      if (r.exitCode !== 0) {
        await git(["clone", "--quiet", "--no-checkout", "--", inputs.remote, repoDir], {
          cwd: tmp,
        });
        await git(["checkout", "--quiet", inputs.ref], { cwd: repoDir });
      }
    });
    const roles = {} as Record<Role, FrozenRole>;
    for (const role of ROLES) {
      const def = await loadRoleDefinition({
        role,
        repoDir,
        defaultsDir: join(inputs.installRoot, "roles"),
        ...(inputs.handbookDir ? { handbookDir: inputs.handbookDir } : {}),
      });
      const skillDigests: Record<string, string | null> = {};
      for (const name of def.skills) skillDigests[name] = await skillDigest(inputs, name);
      roles[role] = {
        prompt: def.prompt,
        skills: def.skills,
        ...(def.model ? { model: def.model } : {}),
        origin: def.origin,
        source: def.source.replace(tmp, "<clone>"),
        settings: effectiveSettings(role, {
          root: inputs.installRoot,
          ...(role === "builder" && inputs.config
            ? { builderCommands: builderAllowPatterns(inputs.config) }
            : {}),
        }),
        schema: JSON.parse(
          await readFile(join(inputs.installRoot, "schemas", `${role}.json`), "utf8"),
        ),
        skillDigests,
      };
    }
    return { roles, provider: inputs.provider, registry: inputs.registry ?? null };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function skillDigest(inputs: SnapshotInputs, name: string): Promise<string | null> {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return null;
  const dirs = [
    ...(inputs.handbookDir ? [join(inputs.handbookDir, "skills")] : []),
    join(inputs.installRoot, "skills"),
  ];
  for (const dir of dirs) {
    const file = join(dir, name, "SKILL.md");
    if (existsSync(file))
      return createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
  }
  return null;
}

/** The frozen role of a run, when its snapshot has one (runs made before R8.5 had none). */
export function frozenRole(
  snapshot: { content: Record<string, unknown> },
  role: Role,
): FrozenRole | null {
  const roles = snapshot.content.roles as Partial<Record<Role, FrozenRole>> | undefined;
  return roles?.[role] ?? null;
}
