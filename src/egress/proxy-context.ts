// What the proxy's handlers share: the rules, the resolver, the limits, the denial log and the
// set of live sockets (close() ends every one), plus the little HTTP plumbing they all need.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { EgressRule } from "./allowlist.js";
import type { EgressLookup } from "./resolve.js";

export interface ProxyContext {
  rules: readonly EgressRule[];
  lookup: EgressLookup;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  deny(host: string, port: number, reason: string): void;
  /** Keeps a socket until it closes, so close() can destroy it. */
  track(socket: Socket | Duplex): void;
}

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own: never forwarded. Proxy-Authorization
 * is the box's business with its proxy, not the target's.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/** `headers` without hop-by-hop ones, those the Connection header names, and `drop`. */
export function endToEndHeaders(
  headers: IncomingHttpHeaders,
  drop: readonly string[] = [],
): OutgoingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(n) || named.includes(n) || drop.includes(n)) continue;
    out[name] = value;
  }
  return out;
}

/** A whole response on a raw socket (CONNECT answers, refusals), then the socket ends. */
export function rawResponse(socket: Duplex, status: number, text: string, body: string): void {
  if (socket.destroyed) return;
  const bytes = Buffer.byteLength(body);
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${bytes}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The body of every refusal: what was refused and why, for the agent's own log. */
export function refusalBody(host: string, port: number, reason: string): string {
  return `forge egress: ${hostPort(host, port)} refused: ${reason}\n`;
}

export function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * `host:port` or `[v6]:port` of a CONNECT request target (RFC 9110 9.3.6: authority-form, port
 * required). Null for anything else.
 */
export function parseAuthority(target: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:@/[\]]+)):(\d{1,5})$/.exec(target);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2] ?? "").toLowerCase(), port };
}
