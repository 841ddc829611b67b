// What an agent's box may reach, and with which credential (R4.6): the harness endpoint only.
// With an API key or an auth token the agent talks to the model through its box's door — the
// gateway — with a placeholder credential, and the runner's side of the door adds the real one,
// so no tool call and no project code the builder runs can read it. A subscription login (an
// OAuth token, a credentials file) cannot be added from outside: the box keeps it, reaches only
// the provider's documented hosts through the proxy, and the run says the credential is inside.
import type { GatewayOptions } from "../egress/gateway.js";
import { gatewayEnv, RELAY_PORT_IN_BOX } from "../egress/relay-command.js";
import { registryEntry } from "../policy/index.js";

export const DEFAULT_ANTHROPIC_ENDPOINT = "https://api.anthropic.com";
export const DEFAULT_OPENAI_ENDPOINT = "https://api.openai.com";
/**
 * Where Claude Code renews a subscription login's token (its OAuth token endpoint), besides
 * the API host. Only used for a login kept in the box.
 */
const ANTHROPIC_LOGIN_HOSTS = ["console.anthropic.com", "platform.claude.com"];

export interface AgentEgress {
  /** CONNECT / plain-HTTP targets the box may reach (host entries). */
  rules: string[];
  /** The model gateway of the box's door, when the credential stays outside. */
  gateway?: GatewayOptions;
  /** The provider's variables as the box gets them (a placeholder where the real one stays out). */
  boxEnv: Record<string, string>;
  /** Where the model credential is: outside the box, in it, or there is none. */
  credential: "outside" | "in-box" | "none";
}

/**
 * `credentials`: the provider's own variables from the host (Provider.credentialEnv).
 * `controlled`: the box goes through the egress proxy; otherwise it shares the host network
 * and gets the credential as it is.
 */
export function agentEgress(o: {
  provider: string;
  credentials: Record<string, string>;
  loginFile: boolean;
  controlled: boolean;
}): AgentEgress {
  const c = o.credentials;
  if (!o.controlled) {
    const has = Object.keys(c).some((k) => k !== "ANTHROPIC_BASE_URL" && k !== "OPENAI_BASE_URL");
    return { rules: [], boxEnv: { ...c }, credential: has || o.loginFile ? "in-box" : "none" };
  }
  if (o.provider === "codex") {
    const endpoint = c.OPENAI_BASE_URL ?? DEFAULT_OPENAI_ENDPOINT;
    return {
      rules: entriesOf([endpoint]),
      boxEnv: { ...c },
      credential: c.OPENAI_API_KEY || o.loginFile ? "in-box" : "none",
    };
  }
  const upstream = c.ANTHROPIC_BASE_URL ?? DEFAULT_ANTHROPIC_ENDPOINT;
  if (c.ANTHROPIC_API_KEY) {
    return {
      rules: [],
      gateway: { upstream, headers: { "x-api-key": c.ANTHROPIC_API_KEY } },
      boxEnv: gatewayEnv("api-key", RELAY_PORT_IN_BOX),
      credential: "outside",
    };
  }
  if (c.ANTHROPIC_AUTH_TOKEN) {
    return {
      rules: [],
      gateway: { upstream, headers: { authorization: `Bearer ${c.ANTHROPIC_AUTH_TOKEN}` } },
      boxEnv: gatewayEnv("auth-token", RELAY_PORT_IN_BOX),
      credential: "outside",
    };
  }
  // A login: the CLI talks to its endpoint itself, through the proxy.
  const login = Boolean(c.CLAUDE_CODE_OAUTH_TOKEN) || o.loginFile;
  return {
    rules: entriesOf([upstream, ...(login ? ANTHROPIC_LOGIN_HOSTS : [])]),
    boxEnv: { ...c },
    credential: login ? "in-box" : "none",
  };
}

function entriesOf(urls: string[]): string[] {
  const out: string[] = [];
  for (const u of urls) {
    const e = registryEntry(u);
    if (e && !out.includes(e)) out.push(e);
  }
  return out;
}
