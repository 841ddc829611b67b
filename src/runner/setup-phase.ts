// The run's setup phase: the project's `setup:` commands, once per run, before the first step,
// in a box whose workspace is writable (a workspace of its own, laid out like a step's). What
// they leave at the top of the workspace that the commit does not hold — `node_modules`,
// `.venv`, a build cache — are the setup's results: every later step sees them (setup-binds.ts),
// so no read-only step has to install anything and the builder's tests run at once.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { BoxUser } from "../boxes/box-user.js";
import type { Box, NetworkSeam } from "../boxes/types.js";
import type { RunPreparation } from "../chain/ports.js";
import { redactSecrets } from "../secrets/index.js";
import { createAgentHome } from "./agent-home.js";
import { runSetup } from "./controls-exec.js";
import { type Door, inDoorBox } from "./egress-door.js";
import type { RunGit } from "./run-git.js";
import { type LayoutBoxes, layOutWorkspace } from "./step-workspace.js";

/** Kept in the run's state: where setup ran and what it left for the steps. */
export interface SetupResults {
  /** The setup's workspace (its results live here; steps see it at this path too). */
  ws: string;
  /** The agents' commit it was laid out at. */
  commit: string;
  /** Top-level directories setup made that the commit does not hold. */
  results: string[];
  /** The commands it ran, and how long they took. */
  commands: string[];
  seconds: number;
}

export interface SetupPhaseDeps {
  layout: LayoutBoxes;
  boxUser?: BoxUser;
  /** The box setup runs in: `dir` writable, `readOnly` shown, behind the setup phase's door. */
  setupBox(dir: string, home: string, readOnly: string[], network: NetworkSeam): Box;
  /** The setup phase's door: the package registries and the hosts the config adds. */
  setupDoor(): Promise<Door>;
  setupEnv(home: string): Promise<Record<string, string>>;
  forge: string[];
  timeoutMs: number;
}

export async function runSetupPhase(
  d: SetupPhaseDeps,
  g: RunGit,
  o: {
    dir: string;
    branch: string;
    commit: string;
    commands: ReadonlyArray<{ command: string; cwd: string }>;
  },
): Promise<RunPreparation & { setup?: SetupResults }> {
  const ws = join(o.dir, "ws");
  const home = join(o.dir, "home");
  await layOutWorkspace(d.layout, {
    source: g.repos.agents,
    commit: o.commit,
    branch: o.branch,
    dir: ws,
    home: join(o.dir, "layout-home"),
    objects: "shared",
  });
  const before = new Set(await readdir(ws));
  const started = Date.now();
  await createAgentHome({ home, ...(d.boxUser ? { user: d.boxUser } : {}) });
  const env = await d.setupEnv(home);
  const denied: Array<{ type: string; data: Record<string, unknown> }> = [];
  const r = await inDoorBox(
    d.setupDoor,
    (network) => d.setupBox(ws, home, [g.repos.agents], network),
    denied,
    (box) =>
      runSetup(o.commands, { box, workspace: ws, env, forge: d.forge, timeoutMs: d.timeoutMs }),
  );
  const results = r.ok ? await newDirectories(ws, before) : [];
  const events = [
    {
      type: "setup.finished",
      data: {
        ok: r.ok,
        commands: o.commands.map((c) => c.command),
        results,
        output: (await redactSecrets(r.output)).text,
        ...(r.failed ? { failed: r.failed } : {}),
      },
    },
    ...denied,
  ];
  if (!r.ok) {
    const tail = (await redactSecrets(r.output.trim().slice(-1500))).text;
    return {
      ok: false,
      reasons: [`setup command failed: ${r.failed ?? "setup"}`, ...refusedHosts(denied), tail],
      events,
    };
  }
  return {
    ok: true,
    reasons: [],
    events,
    setup: {
      ws,
      commit: o.commit,
      results,
      commands: o.commands.map((c) => c.command),
      seconds: Math.round((Date.now() - started) / 100) / 10,
    },
  };
}

/** Top-level directories (never links) that were not there before, `.git` aside. */
async function newDirectories(ws: string, before: Set<string>): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(ws)) {
    if (before.has(name) || name === ".git") continue;
    const st = await lstat(join(ws, name)).catch(() => null);
    if (st?.isDirectory()) out.push(name);
  }
  return out.sort();
}

/**
 * The hosts the proxy refused, as one reason: a setup that failed because its registry was not
 * allowed names the host and the fix.
 */
export function refusedHosts(
  denied: ReadonlyArray<{ type: string; data: Record<string, unknown> }>,
): string[] {
  const targets = [
    ...new Set(denied.map((e) => `${String(e.data.host)}:${String(e.data.port)}`)),
  ].slice(0, 5);
  if (targets.length === 0) return [];
  return [
    `the egress proxy refused ${targets.join(", ")} — if setup needs it, add it to network.setup in .github/forge.yml (or FORGE_EGRESS_SETUP for every repository)`,
  ];
}
