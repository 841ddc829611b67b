// `forge demo`: the change chain on the sample repository in fixtures/demo, through the REAL
// claude binary in real bwrap boxes — with a scripted model instead of a real one, so it
// needs no credentials. The output says so on its first line.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { createDemoRepo } from "../../demo/demo-repo.js";
import { demoScript } from "../../demo/demo-script.js";
import { installRoot } from "../../install-root.js";
import { CHAINS } from "../../roles/role-names.js";
import { startModelServer } from "../../scripted-model/server.js";
import { executeLocalRun } from "../local/local-run.js";

export const DEMO_BANNER =
  "forge demo — SCRIPTED MODEL: every role runs the real claude binary in a bwrap box, but its " +
  "model is a local script (no API call, no credentials). Guard refusals, verdicts, commits and " +
  "the run output below are real.";

export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "run the change chain on a sample repository with a scripted model (no credentials needed)",
    )
    .option("--clean", "delete the demo directory afterwards")
    .action(async (flags: { clean?: boolean }) => {
      const root = installRoot();
      const dir = mkdtempSync(join(tmpdir(), "forge-demo-"));
      const repo = join(dir, "repo");
      await createDemoRepo(root, repo);
      const server = await startModelServer(demoScript());
      try {
        const result = await executeLocalRun({
          root,
          forgeHome: join(dir, "forge-home"),
          env: {
            PATH: process.env.PATH,
            LANG: process.env.LANG,
            TERM: process.env.TERM,
            HOME: process.env.HOME,
            ANTHROPIC_BASE_URL: server.url,
            ANTHROPIC_API_KEY: "forge-demo-not-a-real-key",
          },
          repo,
          chain: "change",
          task: {
            title: "Greet with an exclamation mark",
            body: "greet.sh should print 'Hello, NAME!' — the test in tests/test.sh expects it.",
          },
          base: "main",
          box: "bwrap",
          ownWork: false,
          provider: "claude",
          out: process.stdout,
          json: false,
          roles: CHAINS.change,
          banner: DEMO_BANNER,
        });
        if (result.runOutputPath && result.run) {
          const local = join(dir, "forge-home", "work", result.run.id, "run-output.md");
          process.stdout.write(
            `\n--- ${result.runOutputPath} (on branch ${result.run.branch}) ---\n`,
          );
          process.stdout.write(
            `${readFileSync(local, "utf8").split("\n").slice(0, 30).join("\n")}\n…\n`,
          );
        }
        process.stdout.write(
          flags.clean ? "demo directory removed\n" : `demo repository and state: ${dir}\n`,
        );
        process.exitCode = result.exitCode;
      } finally {
        await server.close();
        if (flags.clean) rmSync(dir, { recursive: true, force: true });
      }
    });
}
