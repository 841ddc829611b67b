// The Linux default box (R7.1): read-only root, writable workspace and HOME only, no network
// unless allowed, own PID/IPC/UTS namespaces, a new session, dies with its parent.
import { existsSync, readlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { bwrapNetworkArgs, networkNotes, resolveNetwork } from "./network.js";
import { absUnder, isStrictAncestor, isWithin, pathKind, real } from "./paths.js";
import type { Box, BoxCommand, BoxDescription, BoxOptions, WrappedCommand } from "./types.js";

/**
 * Host directories hidden behind an empty tmpfs. `--ro-bind / /` alone would let the agent READ
 * every user's home (ssh keys, cloud credentials, ~/.forge with gate.key — R6.4: the key never
 * enters a box) and CONNECT to unix sockets under /run (a read-only mount does not stop
 * connect(2): /run/docker.sock would be root on the host).
 */
export const DEFAULT_HOST_MASKS = ["/home", "/root", "/run", "/var/tmp", "/mnt", "/media"];

export function bwrapBox(opts: BoxOptions): Box {
  const bwrap = opts.bwrapPath ?? "/usr/bin/bwrap";
  const seam = resolveNetwork(opts);
  const workspace = real(resolve(opts.workspace));
  const home = real(resolve(opts.home));
  const masks = (opts.hostMasks ?? DEFAULT_HOST_MASKS).filter((m) => pathKind(m) === "dir");
  const skipped: string[] = [];

  function mountArgs(): string[] {
    const a = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
    for (const m of masks) a.push("--tmpfs", m);
    a.push(...resolvConfArgs(masks));
    const ro = (opts.readOnlyPaths ?? []).map((p) => real(absUnder(workspace, p)));
    // A read-only path ABOVE the workspace or HOME (a toolbox under a masked /root) must come
    // first, or it would cover the writable binds; one at or inside them comes after.
    const isAbove = (p: string) => isStrictAncestor(p, workspace) || isStrictAncestor(p, home);
    const above = ro.filter(isAbove);
    for (const p of above) a.push("--ro-bind", p, p);
    // Likewise a denied directory above them (FORGE_HOME holding the workspaces): hidden by an
    // empty tmpfs first, the binds then reappear inside it.
    const deny = (opts.denySubpaths ?? []).map((p) => absUnder(workspace, p));
    const denyAbove = deny.filter((p) => isAbove(real(p)) && pathKind(p) === "dir");
    for (const p of denyAbove) a.push("--tmpfs", real(p));
    a.push("--bind", workspace, workspace, "--bind", home, home);
    const git = gitDirArgs(workspace);
    a.push(...git.mountPoint);
    for (const p of ro.filter((p) => !above.includes(p))) a.push("--ro-bind", p, p);
    for (const p of opts.writeSubpaths ?? []) {
      const abs = real(absUnder(workspace, p));
      if (existsSync(abs)) a.push("--bind", abs, abs);
      else skipped.push(`write subpath ${abs} does not exist`);
    }
    // After the write subpaths: not even a profile that makes `.git` writable undoes it.
    a.push(...git.readOnly);
    for (const abs of deny.filter((p) => !denyAbove.includes(p))) {
      const kind = pathKind(abs);
      // A directory becomes an empty read-only tmpfs, a file /dev/null; a missing one has
      // nothing to hide (a later write lands in the workspace and write detection sees it).
      if (kind === "dir") a.push("--tmpfs", abs, "--remount-ro", abs);
      else if (kind === "file" || kind === "symlink") a.push("--ro-bind", "/dev/null", abs);
      else skipped.push(`deny subpath ${abs} does not exist`);
    }
    return a;
  }

  return {
    kind: "bwrap",
    wrap(cmd: BoxCommand): WrappedCommand {
      skipped.length = 0;
      const args = [
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        ...mountArgs(),
        // After the masks: a proxy socket is bound under the masked /run.
        ...bwrapNetworkArgs(seam),
        "--chdir",
        real(cmd.cwd),
        "--clearenv",
      ];
      for (const [k, v] of Object.entries(cmd.env)) args.push("--setenv", k, v);
      args.push("--", cmd.command, ...cmd.args);
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
        network: seam.mode === "host" ? "host" : "none",
        networkMode: seam.mode,
        bwrap,
        workspace,
        home,
        hostMasks: masks,
        isolation: [
          "read-only root; writable workspace and HOME only",
          "the workspace's .git/config read-only, .git a mount point (the runner's git reads them)",
          `host dirs hidden: /tmp, ${masks.join(", ")}`,
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
 * The workspace's git config is the runner's, never the agent's. The runner runs git on the
 * workspace on the host after a step (snapshot, commit, diff, push), and a config key can make
 * git run a command (core.fsmonitor on `git status`, filter.<x>.clean on `git add`) or send the
 * push credential elsewhere (remote.origin.url, url.<x>.insteadOf) — so `.git/config` is
 * read-only in the box. `.git` itself becomes a mount point (bound onto itself), so it cannot
 * be renamed away and replaced by a git dir of the agent's making (EBUSY).
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

/**
 * With /run masked, an /etc/resolv.conf that links into it (systemd-resolved) would dangle:
 * bind its target back read-only so a host-network box still resolves names.
 */
function resolvConfArgs(masks: string[]): string[] {
  const conf = "/etc/resolv.conf";
  if (pathKind(conf) !== "symlink") return [];
  const target = resolve(dirname(conf), readlinkSync(conf));
  const hidden = ["/tmp", ...masks].some((m) => isWithin(target, m));
  if (!hidden || !existsSync(target)) return [];
  const t = real(target);
  return ["--ro-bind", t, t];
}
