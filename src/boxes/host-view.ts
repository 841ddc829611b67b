// What of the host a bwrap box sees: an allowlist, not `/` minus a denylist. A denylist must
// know every secret's place in advance (a deployment's key under /srv, an env file beside the
// install, a new home); an allowlist shows the system's binaries and libraries, the few /etc
// files tools read, and the toolchains a deployment names — everything else does not exist.
import { readdirSync, readlinkSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import type { MountPlan } from "./mount-plan.js";
import { isWithin, pathKind, real } from "./paths.js";

/** Shown as they are on the host: a symlink stays a symlink, a directory is bound read-only. */
export const SYSTEM_ROOTS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The /etc entries a box gets (read-only, when the host has them), and why. Left out on
 * purpose: passwd, group, shadow (the box has its own passwd and group: box-identity.ts);
 * gitconfig and gitattributes (a host's git settings — credential helpers, safe.directory — are
 * not the agent's: its git config is the one in its HOME); profile, bash.bashrc, environment
 * (a login shell would reset the runner's PATH); hostname, machine-id (identify the host);
 * ssl/private, pki/tls/private, ssh host keys; any tool's own config (pip.conf, npmrc, java):
 * a deployment that needs one names it in FORGE_BOX_PATHS.
 */
export const ETC_ALLOWLIST: readonly string[] = [
  // the dynamic loader: without its cache, libraries in multiarch directories are not found
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  // name service switch and name resolution (resolv.conf only with network: hostNetworkEtc)
  "nsswitch.conf",
  "host.conf",
  "hosts",
  "gai.conf",
  "services",
  "protocols",
  "networks",
  "rpc",
  // time
  "localtime",
  "timezone",
  // TLS trust: the public certificates only
  "ssl/certs",
  "ssl/openssl.cnf",
  "ssl/cert.pem",
  "ca-certificates",
  "ca-certificates.conf",
  "pki/tls/certs",
  "pki/tls/cert.pem",
  "pki/tls/openssl.cnf",
  "pki/ca-trust",
  "crypto-policies",
  // Debian's alternatives: /usr/bin/awk, editor, pager, java … link through it
  "alternatives",
  // what system this is
  "os-release",
  "lsb-release",
  "debian_version",
  "redhat-release",
  "alpine-release",
  // file types; the system interpreters' own config (Debian links python's sitecustomize here:
  // without it every python start prints an error)
  "mime.types",
  "magic",
  "magic.mime",
  "perl",
  "python3",
  // ssh client defaults (never the host's keys)
  "ssh/ssh_config",
  "ssh/ssh_config.d",
  // df, mount and friends: a link to /proc/mounts
  "mtab",
];

/** Only for a box that shares the host network (follows its link, systemd-resolved's is in /run). */
export const NETWORK_ETC = ["resolv.conf"];

/** Temporary directories: each box gets empty ones, writable by any box user (sticky). */
export const BOX_TMP_DIRS = ["/tmp", "/var/tmp"];

export interface HostViewOptions {
  /** The box shares the host network: it needs resolv.conf. */
  network: boolean;
  /** Deployment toolchains (FORGE_BOX_PATHS, node's prefix): absolute, shown read-only. */
  toolchainPaths: readonly string[];
  /** Hidden by an empty tmpfs, also inside a toolchain path (the install root under /usr). */
  masks: readonly string[];
}

interface Item {
  at: string;
  apply(plan: MountPlan): void;
}

/**
 * Adds the host view to `plan`. Shallower mounts go first, so a mask inside a toolchain path
 * (an install root under /usr) still hides, and a toolchain path inside /tmp or a mask still
 * shows.
 */
export function mountHostView(plan: MountPlan, o: HostViewOptions): void {
  const items: Item[] = [];
  for (const root of SYSTEM_ROOTS) items.push(...expose(root));
  for (const name of etcEntries("/etc", o.network)) items.push(...expose(`/etc/${name}`));
  items.push({ at: "/dev", apply: (p) => p.dev("/dev") });
  items.push({ at: "/proc", apply: (p) => p.proc("/proc") });
  for (const t of BOX_TMP_DIRS) items.push({ at: t, apply: (p) => p.tmpfs(t, { perms: "1777" }) });
  for (const m of o.masks) {
    // The temporary directories are already empty, and must stay writable.
    if (pathKind(m) === "dir" && !BOX_TMP_DIRS.includes(real(m)))
      items.push({ at: real(m), apply: (p) => p.tmpfs(real(m)) });
  }
  for (const t of o.toolchainPaths) items.push(...expose(t));
  const depth = (p: string) => p.split(sep).filter(Boolean).length;
  // Array.prototype.sort is stable: equal depths keep the order above.
  items.sort((a, b) => depth(a.at) - depth(b.at));
  for (const item of items) item.apply(plan);
}

/** The allowlisted names present under `etc`, python3.<minor> directories included. */
export function etcEntries(etc: string, network: boolean): string[] {
  let pythons: string[] = [];
  try {
    pythons = readdirSync(etc).filter((n) => /^python3\.\d+$/.test(n));
  } catch {
    // no /etc at all: nothing to show
  }
  const names = [...ETC_ALLOWLIST, ...pythons, ...(network ? NETWORK_ETC : [])];
  return names.filter((n) => pathKind(`${etc}/${n}`) !== "missing");
}

/**
 * Mounts that show host path `p` as it is: a directory or file read-only, a symlink as the same
 * symlink plus its target when the target lies outside what the box already shows (e.g.
 * /etc/resolv.conf → /run/systemd/resolve/stub-resolv.conf). A dangling link stays dangling.
 */
function expose(p: string, hops = 0): Item[] {
  const kind = pathKind(p);
  if (kind === "missing") return [];
  if (kind !== "symlink") return [{ at: p, apply: (plan) => plan.roBind(p, p) }];
  const target = readlinkSync(p);
  const items: Item[] = [{ at: p, apply: (plan) => plan.symlink(target, p) }];
  const next = resolve(dirname(p), target);
  if (!alwaysShown(next) && hops < 8) items.push(...expose(next, hops + 1));
  return items;
}

function alwaysShown(p: string): boolean {
  return ["/usr", "/proc", "/dev"].some((d) => isWithin(p, d));
}
