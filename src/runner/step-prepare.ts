// A step's own workspace: laid out fresh from agents.git at the commit the role works on
// (step-workspace.ts), with the run's setup results in it (setup-binds.ts: read-only for a
// read-only step, a copy of its own for the builder).
import { join } from "node:path";
import type { BoxUser } from "../boxes/box-user.js";
import type { Role } from "../roles/role-names.js";
import type { RunGit } from "./run-git.js";
import { copySetupResults, readOnlySetupBinds } from "./setup-binds.js";
import type { SetupResults } from "./setup-phase.js";
import { advanceWorkspace, type LayoutBoxes, layOutWorkspace } from "./step-workspace.js";
import type { Workspace } from "./workspace.js";

export interface StepPrepareDeps {
  layout: LayoutBoxes;
  boxUser?: BoxUser;
  /** Whether the box kind can show the setup's results (bwrap binds). */
  setupBinds: boolean;
}

/** The commit of agents.git a role works on: the base, or what is under review. */
export function commitFor(role: Role, g: RunGit): string {
  return role === "reviewer" || role === "security" ? g.base.agentHead : g.base.agentBase;
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
  t: { role: Role; readOnly: boolean; stepDir: string; branch: string; setup?: SetupResults },
): Promise<{ ws: Workspace; commit: string; notes: string[] }> {
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
  const notes: string[] = [];
  if (t.setup && t.setup.results.length > 0) {
    if (!d.setupBinds) {
      notes.push("this box kind cannot show the setup's results: steps run without them");
    } else {
      const placed = t.readOnly
        ? await readOnlySetupBinds(t.setup, ws.dir)
        : await copySetupResults(d.layout, t.setup, ws.dir, join(t.stepDir, "layout-home"));
      ws.binds = placed.binds;
      for (const name of placed.skipped) {
        notes.push(`the setup's ${name} is not shown to ${t.role}: the commit holds that path`);
      }
    }
  }
  return { ws, commit, notes };
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
