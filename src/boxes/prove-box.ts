// The checks on the box itself, before anything runs in it (prove.ts): the host can be the
// toolbox, the box starts, and it meets the image contract (a POSIX shell, git, a writable
// HOME and workspace). Apart from prove.ts because these judge the box kind alone — the
// project's commands, the harness and the network are checked in the box they prove works.
import { tail } from "./box-exec.js";
import { type BoxContext, run } from "./prove-harness.js";
import type { ProveCheck } from "./prove-types.js";
import { type Toolbox, toolboxFact } from "./toolbox.js";
import { type BoxDescription, BoxRefusedError } from "./types.js";

type BoxKind = "bwrap" | "worktree";

export function toolboxCheck(kind: BoxKind, toolbox: Toolbox): ProveCheck {
  const ok = kind === "worktree" || (toolbox.os === "linux" && toolbox.libc !== "unknown");
  return {
    name: "toolbox",
    ok,
    detail: `host ${toolboxFact(toolbox)}`,
    fix: ok ? "" : "bwrap boxes need Linux with glibc or musl; use the container box elsewhere",
  };
}

export async function boxStartsCheck(o: {
  kind: BoxKind;
  /** Builds the box and hands it its directories: the context every later check runs in. */
  start: () => Promise<BoxContext>;
  /** The box's network, as the report names it. */
  network: () => string;
  /** The started box's description, for the report (before the box is tried). */
  described: (description: BoxDescription) => void;
}): Promise<ProveCheck> {
  let ctx: BoxContext;
  try {
    ctx = await o.start();
  } catch (error) {
    if (error instanceof BoxRefusedError) {
      return {
        name: "box starts",
        ok: false,
        detail: error.message,
        fix:
          error.kind === "worktree"
            ? "declare FORGE_OWN_WORK=1 for this deployment, or use --box bwrap"
            : "see the message",
      };
    }
    throw error;
  }
  o.described(ctx.box.describe());
  const r = await run(ctx, "echo forge-box-ok");
  const ok = r.code === 0 && r.stdout.includes("forge-box-ok");
  return {
    name: "box starts",
    ok,
    detail: ok ? `${o.kind} box runs (network: ${o.network()})` : (r.spawnError ?? tail(r.stderr)),
    fix: ok
      ? ""
      : "install bubblewrap (apt-get install bubblewrap) and allow user namespaces or run as root",
  };
}

export async function imageContractCheck(ctx: BoxContext): Promise<ProveCheck> {
  const r = await run(
    ctx,
    'set -e; [ -x /bin/sh ]; git --version; touch "$HOME/.forge-w" && rm "$HOME/.forge-w"; touch .forge-w && rm .forge-w; echo contract-ok',
  );
  const ok = r.code === 0 && r.stdout.includes("contract-ok");
  return {
    name: "image contract",
    ok,
    detail: ok
      ? `POSIX /bin/sh, ${r.stdout.split("\n")[0]}, writable HOME and workspace`
      : tail(r.stderr || r.stdout),
    fix: ok ? "" : "the box needs /bin/sh and git on the host, and a writable HOME and workspace",
  };
}
