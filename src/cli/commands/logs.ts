// `forge logs <run> [role]`: a step's transcript — what its agent said, each tool call and its
// result, refusals, the final output — as readable text, from the journal.
import type { Command } from "commander";
import { isRole } from "../../roles/role-names.js";
import { forgeHome } from "../../store/forge-home.js";
import { findRun } from "../local/run-lookup.js";
import { TRANSCRIPT_EVENT } from "../local/run-usage.js";
import { openStore } from "../local/stack.js";
import { transcriptText } from "../local/transcript-text.js";
import { UsageError } from "../usage-error.js";

export function registerLogs(program: Command): void {
  program
    .command("logs")
    .description("print a run's step transcripts as readable text (tool calls, refusals, results)")
    .argument("<run-id>", "a run id (or a unique prefix)")
    .argument("[role]", "only this role's step (architect | builder | reviewer | security)")
    .option("--attempt <n>", "only this attempt (default: every attempt)")
    .option("--raw", "print the stream-json lines as journaled")
    .action(
      async (
        runId: string,
        role: string | undefined,
        flags: { attempt?: string; raw?: boolean },
      ) => {
        if (role !== undefined && !isRole(role)) {
          throw new UsageError(`${role}: not a role (architect, builder, reviewer or security)`);
        }
        const attempt = flags.attempt === undefined ? undefined : Number(flags.attempt);
        if (attempt !== undefined && !(Number.isInteger(attempt) && attempt > 0)) {
          throw new UsageError(`--attempt ${flags.attempt}: a positive whole number`);
        }
        const store = openStore(forgeHome(process.env), process.env);
        try {
          const run = await findRun(store, runId);
          const transcripts = (await store.eventsOfType(run.id, [TRANSCRIPT_EVENT])).filter(
            (e) =>
              (role === undefined || e.data.role === role) &&
              (attempt === undefined || Number(e.data.attempt) === attempt),
          );
          if (transcripts.length === 0) {
            process.stderr.write(
              `forge logs: no transcript${role ? ` of the ${role}` : ""} in run ${run.id} (its agent has not finished a step yet)\n`,
            );
            process.exitCode = 1;
            return;
          }
          for (const e of transcripts) {
            const d = e.data;
            const stream = typeof d.stream === "string" ? d.stream : "";
            const cut = d.truncated === true ? "; its start was cut (too long)" : "";
            process.stdout.write(
              `=== ${String(d.role)}, attempt ${String(d.attempt)} (${String(d.turns ?? "?")} turns, ${String(d.bytes ?? stream.length)} bytes${cut}) ===\n`,
            );
            process.stdout.write(`${flags.raw ? stream.trimEnd() : transcriptText(stream)}\n\n`);
          }
        } finally {
          await store.close();
        }
      },
    );
}
