// Public API of src/policy: what a repository and a deployment may say about how a chain
// runs, and what they may not undo. Pure domain code except the two file readers
// (loadProfiles, readConfigSource — git is passed in). No adapter imports.
export {
  BUILTIN_CONTROLS,
  type BuiltinControl,
  type ControlInvocation,
  controlInvocation,
  isBuiltinRun,
  isKnownBuiltin,
} from "./builtin-controls.js";
export { formatBytes } from "./byte-size.js";
export { canonicalJson, contentDigest, sha256Hex } from "./canonical-json.js";
export { type ResolveInput, resolveConfig } from "./cascade.js";
export { forgeConfigJsonSchema, forgeConfigJsonSchemaText } from "./config-json-schema.js";
export {
  type ConfigReportSource,
  formatResolvedConfig,
  resolvedConfigJson,
} from "./config-report.js";
export {
  type ConfigSource,
  type GitRunner,
  readConfigSource,
  resolveFromSource,
} from "./config-source.js";
export {
  type ControlProfile,
  type ControlResult,
  type ControlStatus,
  type ControlsEvaluation,
  type ControlToRun,
  controlsToRun,
  type EvaluatedControl,
  evaluateControls,
  formatControlLine,
  setupToRun,
  setupValidateDigest,
} from "./controls.js";
export { DEFAULT_DEPLOYMENT, type DeploymentConfig } from "./deployment.js";
export {
  canonicalHostEntry,
  DEFAULT_EGRESS_PORT,
  formatHostEntry,
  formatHostPort,
  HOST_ENTRY_FORMS,
  type HostEntry,
  type HostEntryKind,
  type HostEntryResult,
  parseHostEntry,
} from "./egress-entry.js";
export {
  deploymentEgress,
  EgressConfigError,
  type EgressMode,
  egressMode,
  withDeploymentEgress,
} from "./egress-env.js";
export {
  type DenialGroup,
  EGRESS_DENIED_EVENT,
  EGRESS_MODE_EVENT,
  EGRESS_PHASES,
  type EgressDenial,
  type EgressPhase,
  type EgressSummary,
  egressSummary,
  groupDenials,
  HOST_NETWORK_SENTENCE,
  hostNetworkSentence,
} from "./egress-events.js";
export { type EgressAllowlists, egressAllowlists } from "./egress-policy.js";
export {
  type HostRegistries,
  PACKAGE_MANAGERS,
  type PackageManager,
  PUBLIC_REGISTRIES,
  REGISTRY_SOURCES,
  type RegistryConfig,
  type RegistrySource,
  registryEntries,
  registryEntry,
  registryEnv,
} from "./egress-registries.js";
export { ExplainError, type Explanation, explain, formatExplanation } from "./explain.js";
export { applyFloor, FLOOR_CONTROLS, FLOOR_SECURITY_CONTROL } from "./floor.js";
export { type ParsedForgeConfig, parseForgeConfig } from "./forge-config-parse.js";
export {
  type ControlSpec,
  DIFF_LIMIT,
  FORGE_CONFIG_PATH,
  type ForgeConfig,
  ForgeConfigSchema,
  type ProviderName,
  type RoleOverrides,
  type Stack,
  type Tier,
} from "./forge-config-schema.js";
export { ConfigError, type ConfigIssue, formatIssue, isConfigError } from "./issues.js";
export {
  appendLedger,
  GENESIS,
  type LedgerEntry,
  type LedgerVerdict,
  ledgerHead,
  verifyLedger,
} from "./ledger.js";
export { detectStacks, stackPreset } from "./presets.js";
export { type Profile, ProfileSchema } from "./profile-schema.js";
export {
  type BoxOptions,
  loadProfile,
  loadProfiles,
  mayRunInParallel,
  type ProviderOptions,
  parseProfile,
  profileToBoxOptions,
  profileToProviderOptions,
  tierModels,
} from "./profiles.js";
export {
  DEFAULT_PROTECTED_PATHS,
  FORGE_STEERING_PATHS,
  normaliseRepoPath,
  type ProtectedTouch,
  touchesProtected,
} from "./protected-paths.js";
export {
  type FreezeOptions,
  type FrozenRegistry,
  type FrozenRole,
  freezeRegistry,
  type RegistryNotice,
  type RoleDocument,
  RoleDocumentSchema,
} from "./registry.js";
export { defaultRoleDocument, handbookRolePath } from "./registry-default.js";
export { loadRepoPolicy, type RepoPolicy, type RepoPolicyDeps } from "./repo-policy.js";
export type {
  Origin,
  ResolvedComponent,
  ResolvedConfig,
  ResolvedControl,
  ResolvedNetwork,
  Sourced,
  SourcedHost,
} from "./resolved-config.js";
export {
  enforceRoleGate,
  matchDisallowed,
  ROLE_GATE_VIOLATION,
  type RoleGateDecision,
  type RoleGateViolationCode,
  roleGateViolationEntry,
} from "./role-gate.js";
export {
  codeSpan,
  DEFAULT_VERIFY_INPUTS,
  verifyInputsNotice,
  verifyInputsTouched,
} from "./verify-inputs.js";
