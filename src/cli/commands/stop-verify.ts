import type { Command } from "commander";
import { blockAnswer, stopVerifyHook } from "../../guard/stop-verify.js";
import { whileHandlingSignals } from "../interrupt.js";

/** Read all of stdin as UTF-8 (the hook JSON is small; stopVerifyHook enforces a size cap). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function registerStopVerify(program: Command): void {
  program
    .command("stop-verify")
    .description(
      "builder Stop hook: scripts/verify.sh from the base commit (FORGE_BASE_REF) must pass (reads hook JSON on stdin)",
    )
    .action(async () => {
      // A Stop hook that throws exits 1, and Claude Code lets the agent stop on exit 1: every
      // failure here must still print a block, so nothing may escape this action.
      const controller = new AbortController();
      let stdout: string;
      try {
        const answer = await whileHandlingSignals(
          ["SIGTERM", "SIGINT"],
          () => controller.abort(),
          async () =>
            stopVerifyHook({
              stdin: await readStdin(),
              env: process.env,
              signal: controller.signal,
            }),
        );
        stdout = answer.stdout;
      } catch (error) {
        stdout = blockAnswer(
          `forge stop-verify could not run (${error instanceof Error ? error.message : String(error)}); blocking.`,
        ).stdout;
      }
      process.stdout.write(stdout);
      process.exitCode = 0;
    });
}
