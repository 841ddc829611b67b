import type { BoxUser } from "./box-user.js";

export type BoxKind = "bwrap" | "worktree" | "container";

/** A command as the runner would start it without a box. */
export interface BoxCommand {
  command: string;
  args: string[];
  cwd: string;
  /** Exactly the environment the agent gets (R2.5: the runner already scrubbed it). */
  env: Record<string, string>;
}

/** What to spawn instead. Spawn it with exactly `env`; a bwrap box clears it again anyway. */
export interface WrappedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Working directory for the spawn itself (the box sets the inner one). */
  cwd?: string;
  /**
   * bwrap: the args with `--info-fd <fd>` added, so the box reports its PID-namespace init
   * and a kill can reach it (box-spawn.ts says why the launcher alone is not enough).
   */
  withInfoFd?: (fd: number) => string[];
  /**
   * container: a command that ends the box from outside (`docker kill <name>`). Killing the
   * engine client alone leaves the container running — still writing to the bind-mounted
   * workspace after the step was judged. Started (with `env`) whenever the box is killed.
   */
  stop?: { command: string; args: string[] };
}

/**
 * The network seam (R4.6): one place decides how a box reaches the world.
 * - host: the box shares the host network (FORGE_EGRESS=host, or a kind without the proxy —
 *   the run output says so);
 * - none: no network at all;
 * - proxy: its own network namespace, the runner's egress proxy socket bound in (src/egress).
 */
/**
 * A box's door to the network (made by the runner, src/runner/egress-door.ts): the seam a box is
 * created with, the wrapper that starts its commands behind the in-box relay, and the close
 * that ends the door's proxy and hands back its refusals as journal events.
 */
export interface BoxDoor {
  network: NetworkSeam;
  wrapBox(box: Box): Box;
  close(): Promise<Array<{ type: string; data: Record<string, unknown> }>>;
}

export interface NetworkSeam {
  mode: "host" | "none" | "proxy";
  /** Host path of the proxy's unix socket (mode "proxy"). */
  proxySocket?: string;
}

export interface ExtraBind {
  src: string;
  dest: string;
  readOnly: boolean;
}

export interface BoxOptions {
  /** The step's workspace (a clone the runner owns): writable. */
  workspace: string;
  /** The agent's HOME: writable. */
  home: string;
  /** Re-bound read-only after the writable binds (e.g. the workspace for a read-only repo). */
  readOnlyPaths?: string[];
  /** Writable again after readOnlyPaths (absolute, or relative to the workspace). */
  writeSubpaths?: string[];
  /** Hidden in the box (absolute, or relative to the workspace); a missing one is skipped. */
  denySubpaths?: string[];
  allowNetwork: boolean;
  /** Overrides allowNetwork when given. */
  network?: NetworkSeam;
  cpus?: number;
  memoryMb?: number;
  /** container: the project's image. */
  image?: string;
  /** worktree: the deployment declares FORGE_OWN_WORK (the operator's own machine and work). */
  ownWork?: boolean;
  /**
   * bwrap: who the box runs as. A switched user (the runner is root) makes the box drop to that
   * uid; without one the box runs as the runner (as root: uid 0 without capabilities).
   */
  user?: BoxUser;
  /**
   * bwrap: host paths shown read-only beside the system's own (node's prefix, the deployment's
   * FORGE_BOX_PATHS). Unlike readOnlyPaths they are mounted with the system view, so a host
   * mask inside one (the install root under /usr) still hides.
   */
  toolchainPaths?: string[];
  /**
   * bwrap: host directories hidden by an empty tmpfs (default DEFAULT_HOST_MASKS), also inside
   * a toolchain path; readOnlyPaths inside a mask show again.
   */
  hostMasks?: string[];
  /** bwrap: util-linux's setpriv, for a switched user (default /usr/bin/setpriv). */
  setprivPath?: string;
  /**
   * More binds, after the workspace's own (bwrap only): `src` shown at `dest`, in order. The
   * run's setup results shown in a step's workspace, and that workspace shown again where setup
   * ran (a venv's scripts and an editable install name that path). A `dest` inside the
   * workspace must exist there.
   */
  extraBinds?: ExtraBind[];
  /** bwrap: the binary (default /usr/bin/bwrap). */
  bwrapPath?: string;
  /** container: docker or podman (default docker). */
  engine?: "docker" | "podman";
}

/** Facts for the report and the proof. */
export interface BoxDescription {
  kind: BoxKind;
  /** "proxy": its own network namespace, with only the egress proxy's socket as a way out. */
  network: "host" | "none" | "proxy";
  /** What the box isolates, in a few words each. */
  isolation: string[];
  /** Plain-language limits: what is NOT enforced, what is not built yet. */
  notes: string[];
  [fact: string]: unknown;
}

export interface Box {
  kind: BoxKind;
  wrap(cmd: BoxCommand): WrappedCommand;
  describe(): BoxDescription;
}

/** A box kind that may not run this work here (e.g. worktree without FORGE_OWN_WORK). */
export class BoxRefusedError extends Error {
  override readonly name = "BoxRefusedError";
  constructor(
    readonly kind: BoxKind | string,
    message: string,
  ) {
    super(message);
  }
}
