// `forge answer <run> <request-id> <answer>`: the human answer to a question a step asked
// (the run paused on it). Answering is journaled evidence; `forge resume` then continues.
import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import type { Command } from "commander";
import { forgeHome } from "../../store/forge-home.js";
import { findRun } from "../local/run-lookup.js";
import { journalEngine, openStore } from "../local/stack.js";

export function registerAnswer(program: Command): void {
  program
    .command("answer")
    .description("answer the question a paused run asks; `forge resume` then continues it")
    .argument("<run-id>", "a run id (or a unique prefix)")
    .argument("<request-id>", "the question's id (`forge status <run>` shows it)")
    .argument("<answer...>", "the answer")
    .action(async (runId: string, requestId: string, words: string[]) => {
      const store = openStore(forgeHome(process.env), process.env);
      try {
        const run = await findRun(store, runId);
        await journalEngine(store).respond(run.id, {
          requestId,
          answer: words.join(" "),
          actor: userInfo().username,
          responseId: `cli-${randomBytes(8).toString("hex")}`,
        });
        process.stdout.write(
          `answered ${requestId} of run ${run.id}; \`forge resume ${run.id}\` continues it\n`,
        );
      } finally {
        await store.close();
      }
    });
}
