// How a step's workspace gets the setup's results (setup-phase.ts). A read-only step sees them
// read-only, bound from the setup's workspace: nothing is copied, and nothing there can be
// changed. A writer (the builder, the controls' checkout) gets its own copy, made in a box, so
// its tests may write caches and it may add a dependency — and nothing it does reaches the
// setup's results, which every later step sees. Either way the workspace is also shown at the
// setup's own path: paths setup wrote into its results (a venv's scripts, an editable install)
// then lead to this step's files, not to the base's.
import { lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { execInBox, tail } from "../boxes/box-exec.js";
import type { ExtraBind } from "../boxes/types.js";
import type { SetupResults } from "./setup-phase.js";
import type { LayoutBoxes } from "./step-workspace.js";

export class SetupCopyError extends Error {
  override readonly name = "SetupCopyError";
}

/**
 * The binds of a read-only step: each result at its place in the workspace, then the workspace
 * again at the setup's path. A result whose place the commit already holds (the builder
 * committed a `node_modules`) is left out: the commit wins, and the note says so.
 */
export async function readOnlySetupBinds(
  setup: SetupResults,
  ws: string,
): Promise<{ binds: ExtraBind[]; skipped: string[] }> {
  const binds: ExtraBind[] = [];
  const skipped: string[] = [];
  for (const name of setup.results) {
    const at = join(ws, name);
    const st = await lstat(at).catch(() => null);
    if (st) {
      skipped.push(name);
      continue;
    }
    // The mount point: the workspace is read-only in the box, so it is made here, before.
    await mkdir(at);
    binds.push({ src: join(setup.ws, name), dest: at, readOnly: true });
  }
  binds.push({ src: ws, dest: setup.ws, readOnly: true });
  return { binds, skipped };
}

const COPY = [
  "set -eu",
  "src=$1; dst=$2; shift 2",
  'for name do cp -a -- "$src/$name" "$dst/$name"; done',
].join("\n");

/**
 * A writer's own copy of the results (cp -a in a box: links stay links, nothing is followed on
 * the host), and its bind at the setup's path. Results whose place the commit holds are left.
 */
export async function copySetupResults(
  layout: LayoutBoxes,
  setup: SetupResults,
  ws: string,
  home: string,
): Promise<{ binds: ExtraBind[]; skipped: string[] }> {
  const names: string[] = [];
  const skipped: string[] = [];
  for (const name of setup.results) {
    if (await lstat(join(ws, name)).catch(() => null)) skipped.push(name);
    else names.push(name);
  }
  if (names.length > 0) {
    await mkdir(home, { recursive: true, mode: 0o700 });
    await layout.handToBox?.(home);
    const r = await execInBox(
      layout.box(ws, home, [setup.ws]),
      {
        command: "/bin/sh",
        args: ["-c", COPY, "forge-setup-copy", setup.ws, ws, ...names],
        cwd: ws,
        env: { ...layout.env, HOME: home },
      },
      { timeoutMs: layout.timeoutMs ?? 10 * 60_000 },
    );
    if (r.code !== 0 || r.timedOut || r.spawnError) {
      const why = r.spawnError ?? (r.timedOut ? "timed out" : tail(`${r.stderr}\n${r.stdout}`));
      throw new SetupCopyError(`the setup's results could not be copied: ${why}`);
    }
  }
  return { binds: [{ src: ws, dest: setup.ws, readOnly: false }], skipped };
}
