// The worktree "box": the command runs as is, in the workspace, as the operator's user. It
// isolates code state only — no filesystem, network, CPU, memory or secret isolation — so it
// is refused unless the deployment declares FORGE_OWN_WORK (R7.1).
import { type Box, type BoxOptions, BoxRefusedError } from "./types.js";

export function worktreeBox(opts: BoxOptions): Box {
  if (!opts.ownWork) {
    throw new BoxRefusedError(
      "worktree",
      "the worktree box isolates code state only (no filesystem, network or secret isolation); " +
        "it runs only where the deployment declares FORGE_OWN_WORK=1 (the operator's own " +
        "machine and work) — use the bwrap box otherwise",
    );
  }
  return {
    kind: "worktree",
    wrap: (cmd) => ({
      command: cmd.command,
      args: [...cmd.args],
      env: { ...cmd.env },
      cwd: cmd.cwd,
    }),
    describe: () => ({
      kind: "worktree",
      network: "host",
      workspace: opts.workspace,
      home: opts.home,
      isolation: ["code state only (own clone)"],
      notes: [
        "no isolation: the agent runs as the operator's user with the host's filesystem and network",
        "allowed because the deployment declares FORGE_OWN_WORK",
        "spawn with exactly the given env (extendEnv: false): nothing else clears it",
      ],
    }),
  };
}
