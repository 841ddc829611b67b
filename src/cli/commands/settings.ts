import type { Command } from "commander";

export function registerSettings(program: Command): void {
  program
    .command("settings")
    .description("(not built yet)")
    .action(() => {
      throw new Error("forge settings is not built yet");
    });
}
