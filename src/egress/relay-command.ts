// How a box's command starts with its relay beside it, and what the box's clients are told.
import { isAbsolute } from "node:path";

/**
 * The relay's port on the box's own loopback. Each box has its own network namespace, so boxes
 * never collide; a port below Linux's ephemeral range (32768+) so no outgoing connection in the
 * box can hold it first, and not a well-known one a project's own tests might bind (3128, 8080).
 */
export const RELAY_PORT_IN_BOX = 28080;

export interface RelayCommandOptions {
  port: number;
  /** The proxy socket as the box sees it (PROXY_SOCKET_IN_BOX). */
  socketInBox: string;
  /** node, as the box sees it (process.execPath: node's prefix is shown in every box). */
  node: string;
  /** dist/egress-relay.cjs of the install root (the toolbox shows dist/). */
  relayScript: string;
  /**
   * The relay in perl (bin/forge-egress-relay.pl, run by Debian's essential perl-base, as the
   * box sees them): it starts in a few milliseconds where node's costs ≈ 40 ms of CPU per box
   * (measured, docs/decisions.md). Absent: node's relay, which the command waits for.
   */
  perl?: { perl: string; script: string };
}

export function relayCommand(o: RelayCommandOptions): { command: string; args: string[] } {
  if (!Number.isInteger(o.port) || o.port < 1 || o.port > 65535) {
    throw new Error(`relay port ${o.port} is not a port number`);
  }
  for (const p of [o.socketInBox, o.node, o.relayScript]) {
    if (!isAbsolute(p)) throw new Error(`relay path "${p}" is not absolute`);
  }
  return { command: o.node, args: [o.relayScript, String(o.port), o.socketInBox] };
}

/**
 * `cmd` started behind its relay, as one `/bin/sh -c` line with everything as positional
 * parameters (nothing is interpolated into the script). The relay starts in the background
 * with its readiness on descriptor 3, which is the command substitution's pipe: the shell waits
 * for "ready" (the relay listens) — or its error — before it execs the command, so the
 * command's first connection never races the relay. The relay holds none of the box's stdio
 * (the agent's stdout is its transcript) and ends with the box: it lives in the box's PID
 * namespace, which the kernel empties when the command (the namespace's last real process
 * besides bwrap's init) ends.
 */
export function withRelay(
  cmd: { command: string; args: string[] },
  o: RelayCommandOptions,
): { command: string; args: string[] } {
  const relay = relayCommand(o);
  if (o.perl) {
    for (const p of [o.perl.perl, o.perl.script]) {
      if (!isAbsolute(p)) throw new Error(`relay path "${p}" is not absolute`);
    }
    return {
      command: o.perl.perl,
      args: [o.perl.script, String(o.port), o.socketInBox, cmd.command, ...cmd.args],
    };
  }
  const [script, port, socket] = relay.args;
  const line =
    'r=$("$1" "$2" "$3" "$4" 3 3>&1 >/dev/null 2>&1 </dev/null &); ' +
    '[ "$r" = ready ] || { printf "forge: the egress relay did not start: %s\\n" "$r" >&2; exit 126; }; ' +
    'shift 4; exec "$@"';
  return {
    command: "/bin/sh",
    args: [
      "-c",
      line,
      "forge-relay",
      relay.command,
      script ?? "",
      port ?? "",
      socket ?? "",
      cmd.command,
      ...cmd.args,
    ],
  };
}

/** A placeholder credential for the box: shaped like nothing real, safe to print. */
export const PLACEHOLDER_CREDENTIAL = "forge-placeholder-credential-the-real-one-stays-outside";

/**
 * The proxy variables for a box (both spellings: curl reads only the lower-case http_proxy,
 * other tools only the upper-case ones). NO_PROXY keeps the box's own loopback in the box — a
 * project's tests talking to their own server — and lets the model CLI reach the relay directly
 * (ANTHROPIC_BASE_URL below) instead of asking the relay to proxy to itself.
 */
export function proxyEnv(port: number = RELAY_PORT_IN_BOX): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  const local = "localhost,127.0.0.1,::1";
  return {
    HTTPS_PROXY: url,
    https_proxy: url,
    HTTP_PROXY: url,
    http_proxy: url,
    NO_PROXY: local,
    no_proxy: local,
  };
}

/**
 * The model through the gateway: the CLI sends origin-form requests to the relay, the proxy
 * adds the real credential. `kind` is how the real one travels (x-api-key or a bearer token), so
 * the CLI sends the placeholder the same way and behaves as it would with the real one.
 */
export function gatewayEnv(
  kind: "api-key" | "auth-token",
  port: number = RELAY_PORT_IN_BOX,
): Record<string, string> {
  const base = { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` };
  return kind === "api-key"
    ? { ...base, ANTHROPIC_API_KEY: PLACEHOLDER_CREDENTIAL }
    : { ...base, ANTHROPIC_AUTH_TOKEN: PLACEHOLDER_CREDENTIAL };
}
