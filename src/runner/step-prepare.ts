// A step's own workspace: laid out fresh from agents.git at the commit the role works on
// (step-workspace.ts), the project's `setup:` run in it for the builder, and — for a read-only
// step — the listing write detection compares against afterwards (tree-manifest.ts).
import { join } from "node:path";
import type { BoxUser } from "../boxes/box-user.js";
import type { Box } from "../boxes/types.js";
import { type ResolvedConfig, setupToRun } from "../policy/index.js";
import type { Role } from "../roles/role-names.js";
import { redactSecrets } from "../secrets/index.js";
import { createAgentHome } from "./agent-home.js";
import { runSetup } from "./controls-exec.js";
import type { RunGit } from "./run-git.js";
import { advanceWorkspace, type LayoutBoxes, layOutWorkspace } from "./step-workspace.js";
import type { Workspace } from "./workspace.js";

export interface StepPrepareDeps {
  layout: LayoutBoxes;
  boxUser?: BoxUser;
  config: ResolvedConfig | null;
  setupBox(dir: string, home: string): Box;
  setupEnv(home: string): Record<string, string>;
  forge: string[];
  controlTimeoutMs?: number;
}

/** The commit of agents.git a role works on: the base, or what is under review. */
export function commitFor(role: Role, g: RunGit): string {
  return role === "reviewer" || role === "security" ? g.base.agentHead : g.base.agentBase;
}

/** Whether laying this step out runs the project's setup (such a step is not warm-started). */
export function needsSetup(role: Role, config: ResolvedConfig | null): boolean {
  return role === "builder" && config !== null && setupToRun(config).length > 0;
}

export function workspaceOf(stepDir: string, g: RunGit, branch: string): Workspace {
  return {
    dir: join(stepDir, "ws"),
    baseSha: g.base.agentBase,
    branch,
    readOnly: [g.repos.agents],
  };
}

export async function layOutStep(
  d: StepPrepareDeps,
  g: RunGit,
  t: { role: Role; stepDir: string; branch: string },
): Promise<{
  ws: Workspace;
  commit: string;
  events: Array<{ type: string; data: Record<string, unknown> }>;
  setupFailed?: string;
}> {
  const ws = workspaceOf(t.stepDir, g, t.branch);
  const commit = commitFor(t.role, g);
  await layOutWorkspace(d.layout, {
    source: g.repos.agents,
    commit,
    branch: t.branch,
    dir: ws.dir,
    home: join(t.stepDir, "layout-home"),
    objects: "shared",
  });
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  if (!needsSetup(t.role, d.config) || !d.config) return { ws, commit, events };
  // The setup commands get a HOME of their own: the agent's HOME holds only its skills.
  const home = join(t.stepDir, "setup-home");
  await createAgentHome({ home, ...(d.boxUser ? { user: d.boxUser } : {}) });
  const r = await runSetup(setupToRun(d.config), {
    box: d.setupBox(ws.dir, home),
    workspace: ws.dir,
    env: d.setupEnv(home),
    forge: d.forge,
    timeoutMs: d.controlTimeoutMs ?? 20 * 60_000,
  });
  events.push({
    type: "setup.finished",
    data: { ok: r.ok, for: t.role, output: (await redactSecrets(r.output)).text },
  });
  return r.ok ? { ws, commit, events } : { ws, commit, events, setupFailed: r.failed ?? "setup" };
}

/** A warm read-only step laid out before the commit it reviews existed: move it there. */
export async function advanceStep(
  d: StepPrepareDeps,
  g: RunGit,
  t: { stepDir: string; branch: string; commit: string },
): Promise<void> {
  await advanceWorkspace(d.layout, {
    source: g.repos.agents,
    commit: t.commit,
    branch: t.branch,
    dir: join(t.stepDir, "ws"),
    home: join(t.stepDir, "layout-home"),
  });
}
