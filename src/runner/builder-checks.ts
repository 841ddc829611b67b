// What the runner does after the builder's agent exited and claimed PASS, in order: bring the
// builder's work back (builder-import.ts: committed and bundled in its box, fetched and checked
// on the host, re-applied onto the real base), lay out a fresh checkout of that work from the
// runner's real repository, run the `setup:` commands there, then scripts/verify.sh from the
// base commit (R2.6: the Stop hook in the box is only a convenience gate) and the `validate:`
// controls (R8.3) in a box over that checkout — the repository as committed, secret files
// included, never with the model credential. Every failure is a reason to FAIL.
import { join } from "node:path";
import type { Box, ExtraBind, NetworkSeam } from "../boxes/types.js";
import {
  controlsToRun,
  evaluateControls,
  formatControlLine,
  isBuiltinRun,
  type ResolvedConfig,
  setupToRun,
} from "../policy/index.js";
import { redactSecrets } from "../secrets/index.js";
import { type ImportTarget, importBuilderWork } from "./builder-import.js";
import { runBuiltinControls, runControls, runSetup } from "./controls-exec.js";
import { isDependencyManifest } from "./dependency-manifests.js";
import { type Door, inDoorBox } from "./egress-door.js";
import { git } from "./git.js";
import type { RunState } from "./run-state.js";
import { copySetupResults } from "./setup-binds.js";
import type { SetupResults } from "./setup-phase.js";
import { type LayoutBoxes, layOutWorkspace } from "./step-workspace.js";
import { verifyFromBaseInBox } from "./verify-in-box.js";

type Event = { type: string; data: Record<string, unknown> };

export interface BuilderChecks {
  /** How to bring the work back (the builder's box, workspace, repositories, base). */
  work: ImportTarget;
  branch: string;
  config: ResolvedConfig | null;
  controlTimeoutMs?: number;
  /** How long scripts/verify.sh may take (FORGE_VERIFY_TIMEOUT). */
  verifyTimeoutMs?: number;
  layout: LayoutBoxes;
  /** A runner-owned directory for the controls' checkout, HOME and verify's script copy. */
  controlsDir: string;
  /** The box verify and the controls run in: `dir` writable, `extraReadOnly` read-only. */
  controlsBox: (
    dir: string,
    home: string,
    extraReadOnly: string[],
    binds: ExtraBind[],
    network: NetworkSeam,
  ) => Box;
  /** What the run's setup phase left (setup-phase.ts), if it ran. */
  setup?: SetupResults;
  /** The box `setup:` runs in (behind the setup phase's door: the package registries). */
  setupBox: (dir: string, home: string, network: NetworkSeam) => Box;
  /** A phase's door (egress-door.ts): what its box may reach. */
  door: (phase: "setup" | "controls" | "verify") => Promise<Door>;
  setupEnv: (home: string) => Promise<Record<string, string>>;
  controlsEnv: (home: string) => Record<string, string>;
  /** How to start forge inside the box. */
  forge: string[];
  /** The run's state: the control results are kept in it for the reviewer and the report. */
  state: RunState;
  saveState: () => Promise<void>;
}

/**
 * The setup's results in the controls' checkout: a copy of the run's (setup-binds.ts), or — when
 * the builder's change touches a dependency manifest — the setup commands run again there.
 */
async function placeSetupResults(
  c: BuilderChecks,
  ws: string,
  home: string,
  workHead: string,
): Promise<{ binds: ExtraBind[]; events: Event[]; failed?: string }> {
  const commands = c.config ? setupToRun(c.config) : [];
  if (commands.length === 0) return { binds: [], events: [] };
  const changed = await git(
    ["diff", "--name-only", "--no-renames", "-z", c.work.base.baseSha, workHead],
    { cwd: c.work.repos.real },
  );
  const manifests = changed.stdout.split("\0").filter((f) => f && isDependencyManifest(f));
  if (c.setup && manifests.length === 0) {
    const copied = await copySetupResults(c.layout, c.setup, ws, join(c.controlsDir, "copy-home"));
    return { binds: copied.binds, events: [] };
  }
  const env = await c.setupEnv(home);
  const denied: Event[] = [];
  const r = await inDoorBox(
    () => c.door("setup"),
    (network) => c.setupBox(ws, home, network),
    denied,
    (box) =>
      runSetup(commands, {
        box,
        workspace: ws,
        env,
        forge: c.forge,
        timeoutMs: c.controlTimeoutMs ?? 20 * 60_000,
      }),
  );
  const events: Event[] = [
    {
      type: "setup.finished",
      data: {
        ok: r.ok,
        for: "controls",
        because: manifests.length
          ? `the builder's change touches ${manifests.slice(0, 10).join(", ")}`
          : "the run's setup results are not there",
        output: (await redactSecrets(r.output)).text,
      },
    },
    ...denied,
  ];
  return r.ok
    ? { binds: [], events }
    : { binds: [], events, failed: `setup command failed before the controls: ${r.failed}` };
}

export async function checkBuilderWork(c: BuilderChecks): Promise<{
  events: Event[];
  reasons: string[];
  /** The builder's work, once imported (even when a check then failed). */
  work?: { agentHead: string; workHead: string };
}> {
  const events: Event[] = [];
  const imported = await importBuilderWork(c.work);
  if (!imported.ok) return { events, reasons: [imported.reason] };
  events.push({
    type: "builder.imported",
    data: { changed: imported.changed, head: imported.workHead, agentHead: imported.agentHead },
  });
  const work = { agentHead: imported.agentHead, workHead: imported.workHead };
  const { real } = c.work.repos;
  const ws = join(c.controlsDir, "ws");
  const home = join(c.controlsDir, "home");
  await layOutWorkspace(c.layout, {
    source: real,
    commit: imported.workHead,
    branch: c.branch,
    dir: ws,
    home,
    objects: "shallow",
    borrowsFrom: [c.work.repos.agents],
  });
  const env = c.controlsEnv(home);
  const timeoutMs = c.controlTimeoutMs ?? 20 * 60_000;
  const placed = await placeSetupResults(c, ws, home, imported.workHead);
  events.push(...placed.events);
  if (placed.failed) return { events, reasons: [placed.failed], work };
  const binds = placed.binds;
  const reasons: string[] = [];
  const toRun = c.config ? controlsToRun(c.config) : [];
  // Built-in controls read the committed work's git objects in the runner (tree-scan.ts):
  // they run beside verify and the project's controls, which run one after the other.
  const early = runBuiltinControls(
    toRun.filter((x) => isBuiltinRun(x.run)),
    { repo: real, commit: imported.workHead },
  );
  const baseSha = c.work.base.baseSha;
  const verify = await verifyBehindDoor(c, { ws, home, binds, env, baseSha }, events).catch(
    (error: unknown) => ({
      present: true,
      ok: false,
      exitCode: null,
      timedOut: false,
      output: String(error),
      baseSha,
    }),
  );
  if (verify.present) {
    events.push({
      type: "verify.finished",
      data: {
        ok: verify.ok,
        exitCode: verify.exitCode,
        timedOut: verify.timedOut,
        output: (await redactSecrets(verify.output.slice(-4000))).text,
      },
    });
    if (!verify.ok)
      reasons.push(
        `scripts/verify.sh (from base ${baseSha.slice(0, 12)}) failed after the builder stopped`,
      );
  }
  if (reasons.length > 0) {
    await early; // the scan ends with the step, not after it
    return { events, reasons, work };
  }
  if (c.config) {
    const late = await inDoorBox(
      () => c.door("controls"),
      (network) => c.controlsBox(ws, home, [], binds, network),
      events,
      (box) =>
        runControls(
          toRun.filter((x) => !isBuiltinRun(x.run)),
          { box, workspace: ws, env, forge: c.forge, timeoutMs },
        ),
    );
    const done = [...(await early), ...late];
    // The configured order, for the report and the reviewer.
    const controls = toRun.flatMap((x) => done.filter((r) => r.id === x.id));
    const evaluation = evaluateControls(controls);
    c.state.controls = controls.map((r) => ({ ...r, output: r.output }));
    c.state.controlLines = evaluation.controls.map(formatControlLine);
    await c.saveState();
    // The failed controls' output (its tail, redacted): `forge status` shows it.
    const outputs = await Promise.all(
      controls
        .filter((r) => r.exitCode !== 0)
        .map(async (r) => ({
          name: r.name,
          exitCode: r.exitCode,
          output: (await redactSecrets(r.output.slice(-3000))).text,
        })),
    );
    events.push({
      type: "controls.finished",
      data: {
        passed: evaluation.passed,
        lines: c.state.controlLines,
        notices: evaluation.notices,
        outputs,
      },
    });
    for (const b of evaluation.blocking) reasons.push(`control ${b.id}: ${b.detail}`);
  } else {
    await early;
  }
  return { events, reasons, work };
}

/** scripts/verify.sh of the base, in a box behind the verify phase's door. */
async function verifyBehindDoor(
  c: BuilderChecks,
  o: { ws: string; home: string; binds: ExtraBind[]; env: Record<string, string>; baseSha: string },
  events: Event[],
) {
  const door = await c.door("verify");
  try {
    return await verifyFromBaseInBox({
      workspace: o.ws,
      repo: c.work.repos.real,
      baseSha: o.baseSha,
      scriptDir: join(c.controlsDir, "verify"),
      box: (scriptDir) =>
        door.wrapBox(c.controlsBox(o.ws, o.home, [scriptDir], o.binds, door.network)),
      env: o.env,
      timeoutMs: c.verifyTimeoutMs ?? c.controlTimeoutMs ?? 10 * 60_000,
    });
  } finally {
    events.push(...(await door.close()));
  }
}
