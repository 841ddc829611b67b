export type { RegisterOptions } from "./known-secrets.js";
export {
  clearKnownSecretsForTests,
  registerKnownSecretBytes,
  registerKnownSecrets,
} from "./known-secrets.js";
export { knownSecretsFromEnv, knownSecretsFromJson } from "./known-secrets-env.js";
export type { DeepSecretFinding } from "./redact.js";
export { redactDeep, redactionMarker, redactSecrets } from "./redact.js";
export type { SecretFinding } from "./scan.js";
export { scanSecrets } from "./scan.js";
export { secretFileValues } from "./secret-file-values.js";
