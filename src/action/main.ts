// The packaged Action's entry (dist/action.js, started by action/dist/index.js): parse, call,
// report — the job itself is run-action.ts. Every failure ends as a workflow error line and a
// failed step, never a silent one.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { realClaudeHost, resolveClaude } from "./claude-binary.js";
import { runAction } from "./run-action.js";
import { ensureUserNamespaces, realUsernsHost } from "./userns.js";
import { workflowCommand, writeOutputs, writeSummary } from "./workflow-io.js";

const out = (text: string) => process.stdout.write(text);
// dist/action.js → the install root.
const installRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function pinnedClaude(): string {
  const pkg = JSON.parse(readFileSync(join(installRoot, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return (pkg.dependencies?.["@anthropic-ai/claude-code"] ?? "").replace(/^[^\d]*/, "");
}

try {
  const r = await runAction({
    env: process.env,
    installRoot,
    pinnedClaude: pinnedClaude(),
    out,
    async prepare(inputs, runtime) {
      const log = (line: string) => out(`${line}\n`);
      await ensureUserNamespaces(realUsernsHost(log));
      const claude = await resolveClaude({
        wanted: inputs.claudeVersion,
        path: process.env.PATH ?? "/usr/bin:/bin",
        toolCache: runtime.toolCache ?? runtime.runnerTemp,
        host: realClaudeHost(log),
      });
      return dirname(claude);
    },
  });
  if (process.env.GITHUB_OUTPUT) writeOutputs(process.env.GITHUB_OUTPUT, r.outputs);
  if (process.env.GITHUB_STEP_SUMMARY && r.summary) {
    writeSummary(process.env.GITHUB_STEP_SUMMARY, r.summary);
  }
  if (r.outputs.verdict === "PAUSED" && r.exitCode === 0 && r.summary?.next) {
    out(workflowCommand("notice", `forgechain paused: ${r.summary.next}`));
  }
  process.exitCode = r.exitCode;
} catch (error) {
  out(workflowCommand("error", `forgechain: ${(error as Error).message}`));
  process.exitCode = 1;
}
