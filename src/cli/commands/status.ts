// `forge status [run-id]`: reads the journal under FORGE_HOME.
import type { Command } from "commander";
import { forgeHome } from "../local/forge-home.js";
import { openStore } from "../local/stack.js";
import { UsageError } from "../usage-error.js";

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("show recent runs, or one run's steps, verdicts, questions and last events")
    .argument("[run-id]", "a run id (or a unique prefix)")
    .option("--json", "print JSON")
    .action(async (runId: string | undefined, flags: { json?: boolean }) => {
      const store = openStore(forgeHome(process.env));
      try {
        const runs = await store.listRuns({ limit: 200 });
        if (!runId) {
          if (flags.json) return void process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
          if (runs.length === 0) return void process.stdout.write("no runs in the journal\n");
          for (const r of runs.slice(0, 20)) {
            process.stdout.write(
              `${r.id}  ${r.state.padEnd(9)} ${r.chain.padEnd(6)} ${r.createdAt}  ${r.task.title.slice(0, 60)}\n`,
            );
          }
          return;
        }
        const matches = runs.filter((r) => r.id.startsWith(runId));
        if (matches.length !== 1) {
          throw new UsageError(
            matches.length === 0 ? `no run ${runId}` : `run id prefix ${runId} is ambiguous`,
          );
        }
        const run = matches[0] as (typeof matches)[number];
        const [steps, requests, events] = await Promise.all([
          store.getSteps(run.id),
          store.listRequests(run.id),
          store.lastEvents(run.id, 15),
        ]);
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ run, steps, requests, events }, null, 2)}\n`);
          return;
        }
        process.stdout.write(`run ${run.id}: ${run.state} (${run.chain} chain)\n`);
        process.stdout.write(
          `  task: ${run.task.title}\n  base: ${run.baseSha ?? "-"}  branch: ${run.branch ?? "-"}\n`,
        );
        process.stdout.write(`  snapshot: sha256:${run.snapshot.digest}\n`);
        for (const s of steps) {
          process.stdout.write(
            `  ${s.role.padEnd(10)} ${s.state.padEnd(8)} attempt ${s.attempt}  ${s.decision?.verdict ?? ""}\n`,
          );
        }
        for (const q of requests)
          process.stdout.write(`  question ${q.id} (${q.status}): ${q.question}\n`);
        process.stdout.write("  last events:\n");
        for (const e of events) process.stdout.write(`    ${e.at}  ${e.type}\n`);
      } finally {
        await store.close();
      }
    });
}
