// The runner's limits and network mode from the environment, for the CLI: a bad value is bad
// usage (exit 2) before anything runs.

import {
  DEFAULT_DEPLOYMENT,
  EgressConfigError,
  egressMode,
  withDeploymentEgress,
} from "../../policy/index.js";
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

/** FORGE_EGRESS, FORGE_EGRESS_SETUP and FORGE_EGRESS_CONTROLS, checked before anything runs. */
export function cliEgressCheck(env: Record<string, string | undefined>): void {
  try {
    egressMode(env);
    withDeploymentEgress(DEFAULT_DEPLOYMENT, env);
  } catch (error) {
    if (error instanceof EgressConfigError) throw new UsageError(error.message);
    throw error;
  }
}
