// `forge stop-verify` as its own small bundle: the builder's Stop hook runs inside the box at
// every stop, so it does not load the whole CLI. Whatever happens, it answers with a block or
// nothing and exits 0: a Stop hook that exits 1 lets the agent stop.
import { blockAnswer, stopVerifyHook } from "../guard/stop-verify.js";
import { whileHandlingSignals } from "./interrupt.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const controller = new AbortController();
let stdout: string;
try {
  stdout = (
    await whileHandlingSignals(
      ["SIGTERM", "SIGINT"],
      () => controller.abort(),
      async () =>
        stopVerifyHook({ stdin: await readStdin(), env: process.env, signal: controller.signal }),
    )
  ).stdout;
} catch (error) {
  stdout = blockAnswer(
    `forge stop-verify could not run (${error instanceof Error ? error.message : String(error)}); blocking.`,
  ).stdout;
}
process.stdout.write(stdout);
process.exitCode = 0;
