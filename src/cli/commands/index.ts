import type { Command } from "commander";
import { registerAnswer } from "./answer.js";
import { registerBox } from "./box.js";
import { registerCancel } from "./cancel.js";
import { registerCheckOutput } from "./check-output.js";
import { registerConfig } from "./config.js";
import { registerDemo } from "./demo.js";
import { registerLogs } from "./logs.js";
import { registerResume } from "./resume.js";
import { registerRun } from "./run.js";
import { registerScanSecrets } from "./scan-secrets.js";
import { registerServe } from "./serve.js";
import { registerSettings } from "./settings.js";
import { registerStatus } from "./status.js";
import { registerStopVerify } from "./stop-verify.js";

/** Every `forge` subcommand; `forge guard` has its own entry (src/cli/guard-entry.ts). */
export function registerCommands(program: Command): void {
  program
    .command("guard")
    .description("PreToolUse hook: deny pushes and secret reads (reads hook JSON on stdin)")
    .requiredOption("--role <role>", "architect | builder | reviewer | security");
  registerSettings(program);
  registerCheckOutput(program);
  registerStopVerify(program);
  registerConfig(program);
  registerBox(program);
  registerScanSecrets(program);
  registerRun(program);
  registerDemo(program);
  registerStatus(program);
  registerLogs(program);
  registerCancel(program);
  registerResume(program);
  registerAnswer(program);
  registerServe(program);
}
