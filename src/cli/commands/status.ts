// `forge status [run-id]`: reads the journal under FORGE_HOME. One run: who drives it (and
// whether that process still lives), the network its boxes had, each phase with its verdict,
// cost and refused connections, and for a failure the reasons and the failing command's output.
import type { Command } from "commander";
import { egressSummary } from "../../policy/index.js";
import { forgeHome } from "../../store/forge-home.js";
import { describeDriver, orphanNotice, type RunDriver, runDriver } from "../local/orphans.js";
import { findRun } from "../local/run-lookup.js";
import { networkLines, phaseLines } from "../local/run-report.js";
import { runUsage } from "../local/run-usage.js";
import { openStore } from "../local/stack.js";

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description(
      "show recent runs, or one run's steps, verdicts, costs, failures, questions and last events",
    )
    .argument("[run-id]", "a run id (or a unique prefix)")
    .option("--json", "print JSON")
    .action(async (runId: string | undefined, flags: { json?: boolean }) => {
      const store = openStore(forgeHome(process.env), process.env);
      try {
        if (!runId) return await listRuns(store, flags.json ?? false);
        const run = await findRun(store, runId);
        const [steps, requests, events, driver] = await Promise.all([
          store.getSteps(run.id),
          store.listRequests(run.id),
          store.events(run.id),
          runDriver(store, run),
        ]);
        if (flags.json) {
          const usage = runUsage(events);
          const json = {
            run,
            steps,
            requests,
            driver: { ...driver.liveness, orphaned: driver.orphaned },
            usage: { total: usage.total, steps: Object.fromEntries(usage.steps) },
            network: egressSummary(events),
            events: events.slice(-15).map(withoutStream),
          };
          process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
          return;
        }
        const out = [`run ${run.id}: ${run.state} (${run.chain} chain)`];
        out.push(`  task: ${run.task.title}`);
        out.push(`  base: ${run.baseSha ?? "-"}  branch: ${run.branch ?? "-"}`);
        out.push(`  snapshot: sha256:${run.snapshot.digest}`);
        out.push(...driverLines(driver));
        out.push(...networkLines(events));
        out.push(...(await phaseLines({ run, steps, events, pending: [] })));
        for (const q of requests) out.push(`  question ${q.id} (${q.status}): ${q.question}`);
        out.push("  last events:");
        for (const e of events.slice(-15)) out.push(`    ${e.at}  ${e.type}`);
        process.stdout.write(`${out.join("\n")}\n`);
      } finally {
        await store.close();
      }
    });
}

async function listRuns(store: ReturnType<typeof openStore>, json: boolean): Promise<void> {
  const runs = await store.recentRuns(20);
  const drivers = await Promise.all(runs.map((r) => runDriver(store, r)));
  if (json) {
    const list = drivers.map((d) => ({ ...d.run, orphaned: d.orphaned }));
    return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  }
  if (runs.length === 0) return void process.stdout.write("no runs in the journal\n");
  for (const d of drivers) {
    const r = d.run;
    const state = d.orphaned ? `${r.state} (orphaned)` : r.state;
    process.stdout.write(
      `${r.id}  ${state.padEnd(9)} ${r.chain.padEnd(6)} ${r.createdAt}  ${r.task.title.slice(0, 60)}\n`,
    );
  }
  for (const d of drivers.filter((x) => x.orphaned)) {
    process.stdout.write(`note: ${orphanNotice(d)}\n`);
  }
}

function driverLines(d: RunDriver): string[] {
  if (d.orphaned) return [`  ! ${orphanNotice(d)}`];
  const unfinished = d.run.state === "running" || d.run.state === "queued";
  if (!unfinished || !d.liveness.driver) return [];
  const how = d.liveness.state === "alive" ? "driven by" : `driven by (${d.liveness.why})`;
  return [`  ${how} ${describeDriver(d.liveness.driver)}`];
}

/** The transcript's stream is long and has its own command (`forge logs`). */
function withoutStream<T extends { data: Record<string, unknown> }>(e: T): T {
  if (typeof e.data.stream !== "string") return e;
  const { stream: _stream, ...data } = e.data;
  return { ...e, data };
}
