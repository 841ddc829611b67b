/**
 * The real BoxGate and SnapshotMaker for `forge serve`: R7.2 on the repository's mirror (its
 * path is the proof's stable key), and R8.5's frozen role snapshot read from the mirror at
 * the run's base ref.
 */
import { harnessFact } from "../boxes/proof-current.js";
import type { JournalStore } from "../chain/ports.js";
import { resolveClaudeBinary } from "../providers/claude.js";
import { buildSnapshotContent, currentValidity, ensureBoxProof } from "../runner/index.js";
import type { BoxGate, DeploymentSettings, SnapshotMaker } from "./services.js";

export function realBoxGate(settings: DeploymentSettings, store: JournalStore): BoxGate {
  return {
    async check({ mirrorDir, config }) {
      if (settings.box !== "bwrap" && settings.box !== "worktree") {
        return `the ${settings.box} box cannot be proved by forge serve yet`;
      }
      const opts = {
        store,
        repo: mirrorDir,
        box: settings.box,
        config,
        root: settings.installRoot,
        forgeHome: settings.forgeHome,
        env: settings.env,
        ownWork: settings.ownWork,
        ...(settings.loginFile ? { loginFile: settings.loginFile } : {}),
      } as const;
      if (!settings.autoProve) {
        const validity = await currentValidity(opts);
        return validity.valid ? null : validity.reason;
      }
      return (await ensureBoxProof(opts)).failure;
    },
  };
}

export function realSnapshots(settings: DeploymentSettings): SnapshotMaker {
  let harness: Promise<string> | null = null;
  return {
    async build({ mirrorDir, ref, registry, config }) {
      harness ??= harnessFact(resolveClaudeBinary(settings.installRoot));
      return buildSnapshotContent({
        installRoot: settings.installRoot,
        remote: mirrorDir,
        ref,
        provider: { name: "claude", version: await harness },
        registry,
        ...(config ? { config } : {}),
      });
    },
  };
}
