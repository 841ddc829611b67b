// The host-isolation checks of `forge box prove`, in the box runs use: a root-only host file is
// unreadable even when it is bound into the box (the box does not hold the host's root), and
// host paths outside the allowlist do not exist in the box at all.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, sep } from "node:path";
import { execInBox, tail } from "./box-exec.js";
import { isStrictAncestor, isWithin } from "./paths.js";
import type { BoxContext } from "./prove-harness.js";
import type { ProveCheck } from "./prove-types.js";
import type { Box, BoxKind } from "./types.js";

const ROOT_ONLY = "host root-only file unreadable";
const OUTSIDE = "host paths outside the allowlist invisible";

/** A worktree box isolates nothing by design: the operator declared the work their own. */
function notApplicable(name: string, kind: BoxKind): ProveCheck | null {
  if (kind !== "worktree") return null;
  return {
    name,
    ok: true,
    detail: "n/a: a worktree box isolates nothing (FORGE_OWN_WORK: the operator's own work)",
    fix: "",
  };
}

export async function rootOnlyFileCheck(o: {
  kind: BoxKind;
  /** prove's own directory (0700): the probe file is made here. */
  base: string;
  ctx: BoxContext;
  /** The run box with more read-only paths. */
  probeBox: (extraReadOnly: string[]) => Box;
  processUid?: number | undefined;
}): Promise<ProveCheck> {
  const na = notApplicable(ROOT_ONLY, o.kind);
  if (na) return na;
  const uid = "processUid" in o ? o.processUid : process.getuid?.();
  if (uid !== 0) {
    return {
      name: ROOT_ONLY,
      ok: true,
      detail: `covered by the runner not being root: boxes run as its uid ${uid ?? "?"}, which cannot read root-only files either`,
      fix: "",
    };
  }
  const sentinel = `FORGE_ROOT_ONLY_${randomBytes(12).toString("hex")}`;
  const file = join(o.base, "root-only-probe");
  writeFileSync(file, `${sentinel}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  // Bound INTO the box on purpose: only the box's user, not its view, may keep it unreadable.
  const r = await execInBox(
    o.probeBox([file]),
    { command: "/bin/cat", args: [file], cwd: o.ctx.workspace, env: o.ctx.env },
    { timeoutMs: 60_000 },
  );
  const denied = /permission denied/i.test(r.stderr);
  if (r.code !== 0 && denied && !r.stdout.includes(sentinel)) {
    return {
      name: ROOT_ONLY,
      ok: true,
      detail: "a 0600 root-owned file bound into the box: permission denied",
      fix: "",
    };
  }
  const what = r.stdout.includes(sentinel)
    ? "the box READ a 0600 root-owned host file"
    : `reading the probe did not fail with permission denied: ${tail(r.spawnError ?? r.stderr ?? "", 200)}`;
  return {
    name: ROOT_ONLY,
    ok: false,
    detail: what,
    fix:
      "boxes must not hold the host's root: as root the runner switches each box to an " +
      "unprivileged uid (FORGE_BOX_UID, default 70000; needs /usr/bin/setpriv from util-linux) — " +
      "or run forgechain as an unprivileged user",
  };
}

export async function outsideAllowlistCheck(o: {
  kind: BoxKind;
  base: string;
  ctx: BoxContext;
  installRoot: string;
  env: Record<string, string | undefined>;
}): Promise<ProveCheck> {
  const na = notApplicable(OUTSIDE, o.kind);
  if (na) return na;
  const probe = join(o.base, "outside-probe");
  writeFileSync(probe, "a host file no box may see\n");
  const toolchains = o.ctx.box.describe().toolchainPaths;
  const shown = [o.ctx.workspace, o.ctx.home, ...(Array.isArray(toolchains) ? toolchains : [])];
  const probes = [probe, ...hostProbes(o.installRoot, o.env, shown)];
  // `[ -e ] || [ -L ]`: a stat, and a dangling link counts as seen too.
  const script = 'for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then echo "SEEN $p"; fi; done';
  const r = await execInBox(
    o.ctx.box,
    {
      command: "/bin/sh",
      args: ["-c", script, "probe", ...probes],
      cwd: o.ctx.workspace,
      env: o.ctx.env,
    },
    { timeoutMs: 60_000 },
  );
  const seen = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("SEEN "))
    .map((l) => l.slice(5));
  if (r.code === 0 && seen.length === 0) {
    return { name: OUTSIDE, ok: true, detail: `absent in the box: ${probes.join(", ")}`, fix: "" };
  }
  return {
    name: OUTSIDE,
    ok: false,
    detail: seen.length
      ? `visible in the box: ${seen.join(", ")}`
      : `the probe did not run: ${tail(r.spawnError ?? r.stderr, 200)}`,
    fix:
      "a box must see only its allowlist: never bind the install root, FORGE_HOME or a home " +
      "as a whole; name toolchains in FORGE_BOX_PATHS by their own directories",
  };
}

/**
 * Existing host paths that no box may see: the install root's `.env` and FORGE_HOME's journal
 * and gate key, always; and one entry of each host directory that is never in the allowlist,
 * unless the box shows it on purpose (`shown`: workspace, HOME, the deployment's toolchains —
 * what lies inside them, and their ancestors, which the box makes as empty mount points).
 */
export function hostProbes(
  installRoot: string,
  env: Record<string, string | undefined>,
  shown: readonly string[],
): string[] {
  const forgeHome = env.FORGE_HOME ?? join(homedir(), ".forge");
  const secrets = [
    join(installRoot, ".env"),
    join(forgeHome, "journal.db"),
    join(forgeHome, "gate.key"),
  ].filter((p) => existsSync(p));
  const entries = ["/root", "/home", "/srv", "/var", "/opt", "/run", "/mnt"]
    .map(firstEntry)
    .filter(
      (p): p is string =>
        p !== null && !shown.some((b) => isWithin(p, b) || isStrictAncestor(p, b)),
    );
  return [...secrets, ...entries];
}

function firstEntry(dir: string): string | null {
  try {
    const name = readdirSync(dir).sort()[0];
    return name === undefined ? null : join(dir, name);
  } catch {
    return null;
  }
}

/** The installation that holds the claude binary (the ancestor of its node_modules). */
export function installRootOf(claudeBinary: string): string {
  const at = isAbsolute(claudeBinary) ? claudeBinary.lastIndexOf(`${sep}node_modules${sep}`) : -1;
  if (at <= 0) {
    throw new Error(
      `cannot tell forgechain's install root from the claude binary ${claudeBinary}: pass installRoot`,
    );
  }
  return claudeBinary.slice(0, at);
}
