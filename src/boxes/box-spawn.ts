// Spawning a wrapped (boxed) command so that a kill takes the whole box, at any moment.
//
// Why not child.kill(): a bwrap box is three processes — bwrap (the launcher we spawn), the
// PID-namespace init it clones, and the command. --die-with-parent binds the init to the
// launcher only once the init has set itself up (bwrap sets PR_SET_PDEATHSIG late, after
// setsid). A SIGKILL to the launcher in its first milliseconds therefore left the init
// orphaned: blocked forever waiting for the dead launcher, or running the agent unattended,
// in both cases holding our stdout pipe so the step never ended (measured: 20 of 40 early
// kills here). So the launcher gets its own process group (the init is in it until setsid),
// and the box reports its init's host pid on an extra descriptor (bwrap --info-fd, written
// before the init is let go); a kill SIGKILLs the group and that init — killing a PID
// namespace's init ends every process in it. A container box names its container, and a kill
// also asks the engine to kill it (the engine client's death does not end the container).
import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import type { WrappedCommand } from "./types.js";

export interface BoxedChild {
  readonly child: ChildProcess & { stdout: Readable; stderr: Readable };
  /** SIGKILL the box: the launcher's group and, once known, the box's PID-namespace init. */
  kill(): void;
}

export interface SpawnBoxedOptions {
  /** Descriptors the box gets as 3, 4, … (e.g. the guard server's listening socket). */
  inheritFds?: readonly number[];
  /** Give the box a stdin pipe (`child.stdin`); otherwise stdin is /dev/null. */
  stdin?: boolean;
}

/** bwrap's --info-fd report is a small JSON object; anything longer is not bwrap's. */
const MAX_INFO_BYTES = 4096;

export function spawnBoxed(cmd: WrappedCommand, opts: SpawnBoxedOptions = {}): BoxedChild {
  const inherit = opts.inheritFds ?? [];
  const infoFd = cmd.withInfoFd ? 3 + inherit.length : undefined;
  const args = cmd.withInfoFd && infoFd !== undefined ? cmd.withInfoFd(infoFd) : cmd.args;
  const stdio: StdioOptions = [opts.stdin ? "pipe" : "ignore", "pipe", "pipe", ...inherit];
  if (infoFd !== undefined) stdio.push("pipe");
  const child = spawn(cmd.command, args, {
    env: cmd.env,
    cwd: cmd.cwd,
    stdio,
    // Its own process group (setsid): a kill reaches the launcher and whatever it forked
    // before the box took a session of its own. It also keeps a terminal's Ctrl-C off the
    // box: the runner decides when the box ends.
    detached: true,
  }) as BoxedChild["child"];

  let killing = false;
  let stopped = false;
  let initPid: number | undefined;
  const killInit = () => {
    if (initPid !== undefined && isBwrap(initPid)) signal(initPid);
  };
  if (infoFd !== undefined) {
    const info = child.stdio[infoFd] as Readable | null | undefined;
    let text = "";
    info?.on("data", (d: Buffer) => {
      if (text.length > MAX_INFO_BYTES || initPid !== undefined) return;
      text += d.toString("utf8");
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (!m) return;
      initPid = Number(m[1]);
      if (killing) killInit();
    });
    info?.on("error", () => {});
  }
  return {
    child,
    kill() {
      killing = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }
      killInit();
      if (cmd.stop && !stopped) {
        stopped = true;
        // Fire and forget: the engine ends the container; its client (killed above) cannot.
        const stopper = spawn(cmd.stop.command, cmd.stop.args, {
          env: cmd.env,
          stdio: "ignore",
          detached: true,
        });
        stopper.on("error", () => {});
        stopper.unref();
      }
    },
  };
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * The reported pid is still the box's init (a bwrap process), not a recycled pid: the report
 * comes from the launcher before the sandboxed command runs, so the box cannot forge it, but
 * the init may have ended and its pid been reused by the time we kill.
 */
function isBwrap(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "bwrap";
  } catch {
    return false;
  }
}
