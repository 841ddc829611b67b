import { bwrapBox } from "./bwrap.js";
import { containerBox } from "./container.js";
import { type Box, type BoxKind, type BoxOptions, BoxRefusedError } from "./types.js";
import { worktreeBox } from "./worktree.js";

export const BOX_KINDS: readonly BoxKind[] = ["bwrap", "worktree", "container"];

/** More kinds plug in here (R7.1). Throws BoxRefusedError for a kind that may not run. */
export function createBox(kind: BoxKind, opts: BoxOptions): Box {
  switch (kind) {
    case "bwrap":
      return bwrapBox(opts);
    case "worktree":
      return worktreeBox(opts);
    case "container":
      return containerBox(opts);
    default:
      throw new BoxRefusedError(
        String(kind),
        `unknown box kind "${String(kind)}" (bwrap, worktree, container)`,
      );
  }
}

/** FORGE_OWN_WORK as the deployment declares it ("1", "true", "yes"). */
export function ownWorkDeclared(env: Record<string, string | undefined>): boolean {
  return /^(1|true|yes)$/i.test(env.FORGE_OWN_WORK ?? "");
}
