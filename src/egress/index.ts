// The egress door of a box (SPEC R4.6): what the runner and the boxes use.
export {
  type AddressClass,
  classifyAddress,
  DEFAULT_EGRESS_PORT,
  EgressEntryError,
  type EgressRule,
  matchEgress,
  parseEgressEntry,
} from "./allowlist.js";
export { GatewayConfigError, type GatewayOptions } from "./gateway.js";
export {
  type EgressDenial,
  type EgressProxy,
  type EgressProxyOptions,
  MAX_DENIALS,
  startEgressProxy,
} from "./proxy.js";
export {
  gatewayEnv,
  PLACEHOLDER_CREDENTIAL,
  proxyEnv,
  RELAY_PORT_IN_BOX,
  type RelayCommandOptions,
  relayCommand,
  withRelay,
} from "./relay-command.js";
export type { EgressLookup, ResolvedAddress } from "./resolve.js";
