export { verdictsDigest } from "./approval.js";
export { canonicalFields, fieldsDigest } from "./canonical.js";
export {
  approvalFields,
  cancelFields,
  fieldsFor,
  type GateFields,
  respondFields,
  resumeFields,
} from "./fields.js";
export { GATE_KEY_FILE, type GateKey, GateKeyError, loadGateKey } from "./gate-key.js";
export {
  type ConsumeNonce,
  createSealer,
  GATES,
  type Gate,
  MIN_KEY_BYTES,
  SEAL_TTL_MS,
  type Seal,
  type Sealer,
  type SealerOptions,
  type SealRequest,
  type VerifyFailure,
  type VerifyResult,
} from "./sealer.js";
