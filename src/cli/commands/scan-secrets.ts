import { execFileSync } from "node:child_process";
import type { Command } from "commander";
import { scanFiles } from "../../secrets/scan-files.js";

/** `forge scan-secrets`: the built-in `forge:secret-scan` control. Exit 1 when a secret is found. */
export function registerScanSecrets(program: Command): void {
  program
    .command("scan-secrets")
    .description(
      "scan the tracked files of the git repository in the current directory for credentials",
    )
    .option("--dir <path>", "repository directory", ".")
    .action(async (opts: { dir: string }) => {
      const out = execFileSync("git", ["-c", "core.hooksPath=/dev/null", "ls-files", "-z"], {
        cwd: opts.dir,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      const files = out.split("\0").filter(Boolean);
      const { findings, skipped } = await scanFiles(opts.dir, files);
      for (const f of findings)
        process.stdout.write(`${f.file}:${f.line}: ${f.ruleId}: ${f.message}\n`);
      for (const s of skipped) process.stdout.write(`skipped ${s}\n`);
      process.stdout.write(
        `${files.length} tracked files scanned, ${findings.length} secret(s) found\n`,
      );
      process.exitCode = findings.length > 0 ? 1 : 0;
    });
}
