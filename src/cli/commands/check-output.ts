import type { Command } from "commander";

export function registerCheckOutput(program: Command): void {
  program
    .command("check-output")
    .description("(not built yet)")
    .action(() => {
      throw new Error("forge check-output is not built yet");
    });
}
