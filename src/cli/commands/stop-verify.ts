import type { Command } from "commander";

export function registerStopVerify(program: Command): void {
  program
    .command("stop-verify")
    .description("(not built yet)")
    .action(() => {
      throw new Error("forge stop-verify is not built yet");
    });
}
