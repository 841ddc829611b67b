export type { DeepSecretFinding } from "./redact.js";
export { redactDeep, redactionMarker, redactSecrets } from "./redact.js";
export type { SecretFinding } from "./scan.js";
export { scanSecrets } from "./scan.js";
