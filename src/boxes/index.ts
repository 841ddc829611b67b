export { execInBox } from "./box-exec.js";
export { type BoxUser, DEFAULT_BOX_ID, handToBox, resolveBoxUser } from "./box-user.js";
export { bwrapBox, DEFAULT_HOST_MASKS } from "./bwrap.js";
export { CONTAINER_HOME, CONTAINER_WORKSPACE, containerBox } from "./container.js";
export { BOX_KINDS, createBox, ownWorkDeclared } from "./create-box.js";
export { startEnforcementModel } from "./enforcement-model.js";
export { PROXY_SOCKET_IN_BOX, resolveNetwork } from "./network.js";
export { harnessFact, measureProofFacts, settingsDigest } from "./proof-current.js";
export {
  isProofValid,
  type ProofValidity,
  proofFacts,
  type ValidateControl,
} from "./proof-facts.js";
export { boxKeyFor, type ProveOptions, type ProveReport, prove } from "./prove.js";
export type { ProveCheck } from "./prove-types.js";
export { createRunBox, parseBoxPaths, type RunBoxOptions } from "./run-box.js";
export {
  detectToolbox,
  TOOLBOX_ENTRIES,
  type Toolbox,
  toolboxFact,
  toolboxPaths,
} from "./toolbox.js";
export * from "./types.js";
export { worktreeBox } from "./worktree.js";
