// The runner's time limits from the environment, for the CLI: a bad value is bad usage (exit 2)
// before anything runs.
import { RunnerLimitError, type RunnerLimits, runnerLimits } from "../../runner/runner-limits.js";
import { UsageError } from "../usage-error.js";

export function cliRunnerLimits(env: Record<string, string | undefined>): RunnerLimits {
  try {
    return runnerLimits(env);
  } catch (error) {
    if (error instanceof RunnerLimitError) throw new UsageError(error.message);
    throw error;
  }
}
