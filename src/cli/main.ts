import { Command, CommanderError } from "commander";
import { StoreConfigError } from "../store/open-store.js";
import { registerCommands } from "./commands/index.js";
import { UsageError } from "./usage-error.js";

const program = new Command("forge")
  .description("forgechain: a fail-closed chain of sandboxed coding agents")
  .showHelpAfterError()
  .exitOverride();

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // help and version are "errors" to commander; bad usage exits 2 everywhere in forge.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof UsageError || error instanceof StoreConfigError) {
    process.stderr.write(`forge: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`forge: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
