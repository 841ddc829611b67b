// The Linux default box (R7.1): an allowlist of the host read-only (host-view.ts), writable
// workspace and HOME only, no network unless allowed, own PID/IPC/UTS namespaces, a new
// session, dies with its parent; with a switched user it runs as an unprivileged uid.
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { identityPrefix } from "./box-identity.js";
import type { BoxUser } from "./box-user.js";
import { BOX_TMP_DIRS, mountHostView, SYSTEM_ROOTS } from "./host-view.js";
import { MountPlan } from "./mount-plan.js";
import { bwrapNetworkArgs, networkNotes, PROXY_SOCKET_IN_BOX, resolveNetwork } from "./network.js";
import { absUnder, isStrictAncestor, isWithin, pathKind, real } from "./paths.js";
import {
  type Box,
  type BoxCommand,
  type BoxDescription,
  type BoxOptions,
  BoxRefusedError,
  type WrappedCommand,
} from "./types.js";

/**
 * Host directories that are never part of the allowlist and, on top, get an empty tmpfs in
 * the box (so a toolchain path inside one shows alone). They once were the whole protection
 * (`--ro-bind / /` minus these); now the allowlist is, and FORGE_HOME, /srv, /var, /opt are
 * just as absent.
 */
export const DEFAULT_HOST_MASKS = ["/home", "/root", "/run", "/var/tmp", "/mnt", "/media"];

/** util-linux's setpriv: drops the box to its user once bwrap has built the box. */
export const SETPRIV = "/usr/bin/setpriv";

/**
 * The capabilities bwrap keeps for setpriv alone: change uid and gid, and (SETPCAP) clear the
 * bounding set — without it setpriv leaves the bounding set full and still exits 0 (measured).
 */
const SWITCH_CAPS = ["CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"];

/**
 * Variables the dynamic loader, libc or a shell act on. The identity shell and setpriv run with
 * the box's environment while they still hold the capabilities above, so such a variable there
 * would run code as root in the box (glibc ignores them only for setuid programs). The runner
 * never sets them.
 */
const LOADER_VARS =
  /^(BASH_ENV|ENV|LD_.*|GCONV_PATH|GETCONF_DIR|GLIBC_TUNABLES|HOSTALIASES|LOCPATH|MALLOC_TRACE|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|LOCALDOMAIN)$/;

export function bwrapBox(opts: BoxOptions): Box {
  const bwrap = opts.bwrapPath ?? "/usr/bin/bwrap";
  const seam = resolveNetwork(opts);
  const workspace = real(resolve(opts.workspace));
  const home = real(resolve(opts.home));
  const masks = (opts.hostMasks ?? DEFAULT_HOST_MASKS).filter((m) => pathKind(m) === "dir");
  const toolchains = (opts.toolchainPaths ?? []).map((p) => resolve(p));
  const user = boxUserOf(opts);
  const setpriv = opts.setprivPath ?? SETPRIV;
  if (user.switched) checkSwitch(user, setpriv);
  const identity = identityPrefix({ uid: user.uid, gid: user.gid, home });
  const skipped: string[] = [];

  function mountArgs(): string[] {
    const plan = new MountPlan();
    mountHostView(plan, { network: seam.mode === "host", toolchainPaths: toolchains, masks });
    // Where the box writes its passwd and group (identityPrefix), even on a host without /etc.
    plan.parents("/etc/passwd");
    const ro = (opts.readOnlyPaths ?? []).map((p) => real(absUnder(workspace, p)));
    // A read-only path ABOVE the workspace or HOME must come first, or it would cover the
    // writable binds; one at or inside them comes after.
    const isAbove = (p: string) => isStrictAncestor(p, workspace) || isStrictAncestor(p, home);
    const above = ro.filter(isAbove);
    for (const p of above) plan.roBind(p);
    // Likewise a denied directory above them (FORGE_HOME holding the workspaces): hidden by an
    // empty tmpfs first, the binds then reappear inside it.
    const deny = (opts.denySubpaths ?? []).map((p) => absUnder(workspace, p));
    const denyAbove = deny.filter((p) => isAbove(real(p)) && pathKind(p) === "dir");
    for (const p of denyAbove) plan.tmpfs(real(p));
    plan.bind(workspace).bind(home);
    const git = gitDirArgs(workspace);
    if (git.mountPoint.length) plan.bind(`${workspace}/.git`);
    for (const p of ro.filter((p) => !above.includes(p))) plan.roBind(p);
    const writes: string[] = [];
    for (const p of opts.writeSubpaths ?? []) {
      const abs = real(absUnder(workspace, p));
      if (existsSync(abs)) writes.push(abs);
      else skipped.push(`write subpath ${abs} does not exist`);
    }
    for (const p of writes) plan.bind(p);
    // After the write subpaths: not even a profile that makes `.git` writable undoes it.
    if (git.readOnly.length) plan.roBind(`${workspace}/.git/config`);
    // In the order given: a later bind takes the earlier ones below it along (binds are
    // recursive), so the workspace shown again elsewhere shows the setup results in it too.
    for (const b of opts.extraBinds ?? []) {
      if (b.readOnly) plan.roBind(real(b.src), b.dest);
      else plan.bind(real(b.src), b.dest);
    }
    const shown = [
      ...SYSTEM_ROOTS.map(real),
      "/etc",
      ...toolchains,
      ...ro,
      workspace,
      home,
      ...writes,
      ...(opts.extraBinds ?? []).map((b) => b.dest),
    ];
    const hidden = [...masks.map(real), ...BOX_TMP_DIRS];
    for (const abs of deny.filter((p) => !denyAbove.includes(p))) {
      // One the box does not show needs no cover: /dev/null there would make the path exist
      // (FORGE_HOME, the install root's .env are simply not in the box).
      if (!seenInBox(join(real(dirname(abs)), basename(abs)), shown, hidden)) continue;
      const kind = pathKind(abs);
      // A directory becomes an empty read-only tmpfs, a file /dev/null; a missing one has
      // nothing to hide (a later write lands in the workspace and write detection sees it).
      if (kind === "dir") plan.tmpfs(abs, { readOnly: true });
      else if (kind === "file" || kind === "symlink") plan.roBind("/dev/null", abs);
      else skipped.push(`deny subpath ${abs} does not exist`);
    }
    // Last: a proxy socket is bound under the box's /run.
    plan.raw(bwrapNetworkArgs(seam), seam.mode === "proxy" ? [PROXY_SOCKET_IN_BOX] : []);
    return plan.args;
  }

  return {
    kind: "bwrap",
    wrap(cmd: BoxCommand): WrappedCommand {
      skipped.length = 0;
      if (user.switched) checkEnv(cmd.env);
      const args = [
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        ...(user.switched ? SWITCH_CAPS.flatMap((c) => ["--cap-add", c]) : []),
        ...mountArgs(),
        "--chdir",
        real(cmd.cwd),
        "--clearenv",
      ];
      for (const [k, v] of Object.entries(cmd.env)) args.push("--setenv", k, v);
      // The box's passwd and group are written first (box-identity.ts), then the user drops.
      args.push("--", ...identity, ...(user.switched ? switchPrefix(user, setpriv) : []));
      args.push(cmd.command, ...cmd.args);
      // bwrap clears the environment itself, so even a spawn that merges process.env in
      // cannot leak a host variable; the spawn needs nothing.
      return {
        command: bwrap,
        args,
        env: {},
        withInfoFd: (fd) => ["--info-fd", String(fd), ...args],
      };
    },
    describe(): BoxDescription {
      return {
        kind: "bwrap",
        network: seam.mode,
        networkMode: seam.mode,
        bwrap,
        workspace,
        home,
        user,
        hostMasks: masks,
        toolchainPaths: toolchains,
        isolation: [
          `an allowlist of the host, read-only: ${SYSTEM_ROOTS.join(", ")}, a few /etc files ` +
            "(with the box's own passwd and group), the toolchains named; nothing else of the " +
            "host exists in the box (no /root, /home, /srv, /run, /var, /opt, /mnt, FORGE_HOME)",
          "writable workspace and HOME only; empty /tmp and /var/tmp",
          "the workspace's .git/config read-only, .git a mount point",
          userFact(user),
          "own PID, IPC, UTS (and cgroup) namespaces; new session; all capabilities dropped",
          "dies with its parent",
          "environment cleared; exactly the runner's variables set",
        ],
        notes: [
          ...networkNotes(seam),
          "no CPU or memory limit (bwrap has none; use the container box or systemd-run)",
          "environment values travel on bwrap's argv: visible in /proc/<pid>/cmdline to host " +
            "processes of the same user (mount /proc with hidepid=2 on a shared host)",
          ...(opts.cpus !== undefined || opts.memoryMb !== undefined
            ? ["cpus/memoryMb were asked for but bwrap cannot enforce them"]
            : []),
          ...skipped,
        ],
      };
    },
  };
}

/**
 * Whether host path `p` shows in the box: the deepest shown path or mask holding it is a shown
 * one (binds after the masks win a tie, as they are mounted later).
 */
export function seenInBox(p: string, shown: readonly string[], hidden: readonly string[]): boolean {
  let depth = -1;
  let seen = false;
  for (const s of shown) {
    if (isWithin(p, s) && s.length > depth) [depth, seen] = [s.length, true];
  }
  for (const m of hidden) {
    if (isWithin(p, m) && m.length > depth) [depth, seen] = [m.length, false];
  }
  return seen;
}

/** Without a user the box runs as the runner (root: uid 0 without capabilities). */
function boxUserOf(opts: BoxOptions): BoxUser {
  if (opts.user) return opts.user;
  const uid = process.getuid?.() ?? 0;
  return { uid, gid: process.getgid?.() ?? uid, switched: false };
}

function checkSwitch(user: BoxUser, setpriv: string): void {
  if (user.uid === 0 || user.gid === 0) {
    throw new BoxRefusedError("bwrap", "a box user must not be root (uid/gid 0)");
  }
  if (!existsSync(setpriv)) {
    throw new BoxRefusedError(
      "bwrap",
      `${setpriv} is missing: boxes run as an unprivileged user through setpriv; install ` +
        "util-linux (apt-get install util-linux; on older Debian/Ubuntu the setpriv package)",
    );
  }
}

function checkEnv(env: Record<string, string>): void {
  const bad = Object.keys(env).filter((k) => LOADER_VARS.test(k));
  if (bad.length) {
    throw new BoxRefusedError(
      "bwrap",
      `refusing ${bad.join(", ")} in a box's environment: the user switch would run with it`,
    );
  }
}

/**
 * Once bwrap has built the box, become the box user for good: real and effective uid/gid, no
 * supplementary groups, no inheritable or bounding capabilities, and no_new_privs, so no setuid
 * program in the box can give any of it back.
 */
function switchPrefix(user: BoxUser, setpriv: string): string[] {
  return [
    setpriv,
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    "--",
  ];
}

function userFact(user: BoxUser): string {
  if (user.switched) {
    return `runs as uid ${user.uid}, gid ${user.gid} (not root, no capabilities): the host's permissions keep root-only files unreadable`;
  }
  if (user.uid === 0) {
    return "runs as root with all capabilities dropped: root-owned files it can see stay readable (give the box a user)";
  }
  return `runs as the runner's own uid ${user.uid} (user namespace)`;
}

/**
 * A second layer: the host's git no longer runs in a workspace at all (src/runner/run-repos.ts
 * — it fetches the builder's work from a bundle made in the box), and each step gets a fresh
 * one. The workspace's `.git/config` stays read-only in the box and `.git` a mount point
 * (bound onto itself, so it cannot be renamed away: EBUSY): an agent that goes round them
 * (`commondir`, includes) changes only what git does in its own box.
 */
export function gitDirArgs(workspace: string): { mountPoint: string[]; readOnly: string[] } {
  const gitDir = `${workspace}/.git`;
  if (pathKind(gitDir) !== "dir") return { mountPoint: [], readOnly: [] };
  const config = `${gitDir}/config`;
  return {
    mountPoint: ["--bind", gitDir, gitDir],
    readOnly: pathKind(config) === "file" ? ["--ro-bind", config, config] : [],
  };
}
