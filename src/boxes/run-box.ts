// The one way a box for a run is built — by the runner for every step and control, and by
// `forge box prove`, so the proof certifies the boxes runs use and not a look-alike. It adds
// what every run box needs: forgechain's toolbox (never its install root as a whole), the
// toolchains the deployment names (FORGE_BOX_PATHS) and the box user.
import { existsSync } from "node:fs";
import { isAbsolute, normalize, resolve } from "node:path";
import type { BoxUser } from "./box-user.js";
import { DEFAULT_HOST_MASKS } from "./bwrap.js";
import { createBox } from "./create-box.js";
import { isStrictAncestor, isWithin, real } from "./paths.js";
import { toolboxPaths } from "./toolbox.js";
import {
  type Box,
  type BoxKind,
  BoxRefusedError,
  type ExtraBind,
  type NetworkSeam,
} from "./types.js";

export interface RunBoxOptions {
  workspace: string;
  home: string;
  /** Step files shown read-only (settings, profile, the guard socket's directory, …). */
  readOnlyPaths?: string[];
  writeSubpaths?: string[];
  denySubpaths?: string[];
  network?: NetworkSeam;
  allowNetwork: boolean;
  ownWork?: boolean;
  user: BoxUser;
  /** forgechain's install root: only its toolbox entries enter the box. */
  installRoot: string;
  /** More binds after the workspace's own (types.ts ExtraBind). */
  extraBinds?: ExtraBind[];
  /** More toolchain paths (absolute, existing), beside FORGE_BOX_PATHS. */
  extraPaths?: string[];
  /** Where FORGE_BOX_PATHS is read (default process.env). */
  env?: Record<string, string | undefined>;
}

export function createRunBox(kind: BoxKind, o: RunBoxOptions): Box {
  const root = real(resolve(o.installRoot));
  for (const p of o.readOnlyPaths ?? []) {
    // The toolbox is added here, entry by entry; the root itself would bring its `.env` along.
    const abs = real(resolve(o.workspace, p));
    if (abs === root || isStrictAncestor(abs, root)) {
      throw new BoxRefusedError(
        kind,
        `read-only path ${abs} would show forgechain's install root ${root} whole (its .env ` +
          "included); a run box gets the toolbox from the install root by itself",
      );
    }
  }
  const toolbox = toolboxPaths(root);
  const inRoot = toolbox.filter((p) => isWithin(p, root));
  const toolchains = [
    ...toolbox.filter((p) => !isWithin(p, root)),
    ...parseBoxPaths(o.env ?? process.env),
    ...(o.extraPaths ?? []).map((p) => checkedPath(p, "extra toolchain path")),
  ];
  return createBox(kind, {
    workspace: o.workspace,
    home: o.home,
    readOnlyPaths: [...inRoot, ...(o.readOnlyPaths ?? [])],
    ...(o.writeSubpaths ? { writeSubpaths: o.writeSubpaths } : {}),
    ...(o.denySubpaths ? { denySubpaths: o.denySubpaths } : {}),
    ...(o.network ? { network: o.network } : {}),
    allowNetwork: o.allowNetwork,
    ownWork: o.ownWork ?? false,
    user: o.user,
    toolchainPaths: toolchains,
    ...(o.extraBinds?.length ? { extraBinds: o.extraBinds } : {}),
    // The install root is emptied even where a toolchain path shows it (an npm install under
    // /usr); its toolbox entries then show again inside it.
    hostMasks: [...DEFAULT_HOST_MASKS, root],
  });
}

/**
 * FORGE_BOX_PATHS: the deployment's toolchains outside the system directories (a JDK under
 * /opt, a pyenv, /etc/pip.conf), colon-separated absolute paths, shown read-only in every box.
 */
export function parseBoxPaths(env: Record<string, string | undefined>): string[] {
  const raw = env.FORGE_BOX_PATHS ?? "";
  return raw
    .split(":")
    .filter((p) => p.trim() !== "")
    .map((p) => checkedPath(p, "FORGE_BOX_PATHS entry"));
}

function checkedPath(p: string, what: string): string {
  if (!isAbsolute(p) || /[\n\0]/.test(p)) {
    throw new BoxRefusedError("bwrap", `${what} "${p}": expected an absolute path`);
  }
  const abs = normalize(p).replace(/(.)\/+$/, "$1");
  if (abs === "/") {
    throw new BoxRefusedError(
      "bwrap",
      `${what} "/": that would show the whole host in every box; name the toolchain's own directories`,
    );
  }
  if (!existsSync(abs)) {
    throw new BoxRefusedError("bwrap", `${what} ${abs} does not exist on this host`);
  }
  return abs;
}
