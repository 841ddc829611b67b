// `forge cancel <run>`: ends a run from any terminal. The cancel is journaled at once (the step
// it ran fails with the reason); a `forge run` or `forge resume` driving it reads the journal
// and stops its agent within a second.
import type { Command } from "commander";
import { TERMINAL_RUN_STATES } from "../../chain/types.js";
import { forgeHome } from "../../store/forge-home.js";
import { describeDriver, runDriver } from "../local/orphans.js";
import { findRun } from "../local/run-lookup.js";
import { journalEngine, openStore } from "../local/stack.js";

export function registerCancel(program: Command): void {
  program
    .command("cancel")
    .description(
      "cancel a run (queued, running or paused): its running step fails, no later step starts",
    )
    .argument("<run-id>", "a run id (or a unique prefix)")
    .option("--reason <text>", "why, journaled with the cancel", "cancelled with forge cancel")
    .action(async (runId: string, flags: { reason: string }) => {
      const store = openStore(forgeHome(process.env), process.env);
      try {
        const run = await findRun(store, runId);
        if (TERMINAL_RUN_STATES.has(run.state)) {
          process.stdout.write(`run ${run.id} is already ${run.state}: nothing to cancel\n`);
          process.exitCode = run.state === "cancelled" ? 0 : 1;
          return;
        }
        const driver = await runDriver(store, run);
        const after = await journalEngine(store).cancel(run.id, flags.reason);
        process.stdout.write(`run ${after.id}: ${after.state} (was ${run.state})\n`);
        const l = driver.liveness;
        if (l.state === "alive") {
          const cli = /^forge (run|resume)$/.test(l.driver.command);
          process.stdout.write(
            cli
              ? `${describeDriver(l.driver)} drives it: it stops its agent within a second\n`
              : `${describeDriver(l.driver)} drives it: its current step runs to its end, and no later step starts\n`,
          );
        }
      } finally {
        await store.close();
      }
    });
}
