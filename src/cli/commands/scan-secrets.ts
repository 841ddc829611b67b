import type { Command } from "commander";
import { scanSecretsMain } from "../scan-secrets-main.js";

/** `forge scan-secrets` (bin/forge.js runs it from its own bundle; this is for --help and tests). */
export function registerScanSecrets(program: Command): void {
  program
    .command("scan-secrets")
    .description(
      "scan the tracked files of a git repository for credentials (exit 1 when one is found)",
    )
    .option("--dir <path>", "repository directory", ".")
    .action(async (opts: { dir: string }) => {
      process.exitCode = await scanSecretsMain(opts.dir, process.stdout);
    });
}
