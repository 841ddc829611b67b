// The runner's public surface: what the App and the Action may use of it (checked by the
// layering rules in .dependency-cruiser.cjs). The runner's other modules are its own business.
export { currentValidity, ensureBoxProof } from "./box-gate.js";
export { GitError, git } from "./git.js";
export { gitRunnerIn } from "./git-runner.js";
export { createLocalRunner, type LocalRunnerOptions } from "./local-runner.js";
export {
  ensureRunWork,
  fetchWork,
  type HandedState,
  handedState,
  isPushedWork,
  type PushedWork,
  pushWork,
  takeHandedState,
  workDiff,
  workRefOf,
} from "./remote-work.js";
export { runRepos } from "./run-repos.js";
export { RunnerLimitError, type RunnerLimits, runnerLimits } from "./runner-limits.js";
export { buildSnapshotContent } from "./snapshot-content.js";
export { addUsage, formatUsage, type StepUsage, usageOfTranscript } from "./step-usage.js";
export { branchName } from "./workspace.js";
