// The two ways a box's client leaves through the proxy: a CONNECT tunnel (https and anything
// else over TCP) and a plain-HTTP request in absolute form (`GET http://host/path`). Both are
// judged the same way (admit): the target must match a rule BEFORE any lookup — never resolve
// a name that is not allowed, a lookup alone carries data out (DNS exfiltration) — then the
// name is resolved here, its addresses checked, and exactly those are connected to.
import { type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { isTargetHost, matchEgress, normalTargetHost } from "./allowlist.js";
import {
  endToEndHeaders,
  hostPort,
  type ProxyContext,
  parseAuthority,
  rawResponse,
  refusalBody,
} from "./proxy-context.js";
import { EgressRefusal, pinnedLookup, type ResolvedAddress, resolveTarget } from "./resolve.js";

type Admission =
  | { ok: true; host: string; addresses: ResolvedAddress[] }
  | { ok: false; status: 400 | 403 | 502; body: string };

export async function admit(ctx: ProxyContext, rawHost: string, port: number): Promise<Admission> {
  const host = normalTargetHost(rawHost);
  if (!isTargetHost(host)) {
    return { ok: false, status: 400, body: "forge egress: not a host name\n" };
  }
  const refuse = (reason: string): Admission => {
    ctx.deny(host, port, reason);
    return { ok: false, status: 403, body: refusalBody(host, port, reason) };
  };
  const rule = matchEgress(ctx.rules, host, port);
  if (!rule) return refuse("not in this box's allowlist");
  try {
    return { ok: true, host, addresses: await resolveTarget(host, rule, ctx.lookup) };
  } catch (error) {
    if (error instanceof EgressRefusal) return refuse(error.reason);
    return { ok: false, status: 502, body: `forge egress: ${(error as Error).message}\n` };
  }
}

/** A TCP connection to exactly the checked addresses (node tries each, families alternating). */
export function connectChecked(
  ctx: ProxyContext,
  host: string,
  port: number,
  addresses: readonly ResolvedAddress[],
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, lookup: pinnedLookup(addresses) });
    ctx.track(socket);
    const timer = setTimeout(
      () => socket.destroy(new Error(`connecting to ${hostPort(host, port)} timed out`)),
      ctx.connectTimeoutMs,
    );
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeListener("error", reject);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const STATUS_TEXT = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" } as const;

/** CONNECT host:port. Judged on the request target alone: the Host header is not looked at. */
export async function handleConnect(
  ctx: ProxyContext,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
): Promise<void> {
  ctx.track(client);
  client.on("error", () => client.destroy());
  const target = parseAuthority(req.url ?? "");
  if (!target) {
    rawResponse(client, 400, "Bad Request", "forge egress: CONNECT needs host:port\n");
    return;
  }
  const a = await admit(ctx, target.host, target.port);
  if (!a.ok) {
    rawResponse(client, a.status, STATUS_TEXT[a.status], a.body);
    return;
  }
  let upstream: Socket;
  try {
    upstream = await connectChecked(ctx, a.host, target.port, a.addresses);
  } catch (error) {
    rawResponse(client, 502, "Bad Gateway", `forge egress: ${(error as Error).message}\n`);
    return;
  }
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  upstream.setNoDelay(true);
  client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
  if (head.length) upstream.write(head);
  splice(client, upstream, ctx.idleTimeoutMs);
}

/**
 * Bytes both ways until either side is done. An end is passed on as an end (what was written
 * is still delivered), an error or a long silence destroys both.
 */
function splice(a: Duplex, b: Socket, idleMs: number): void {
  a.pipe(b);
  b.pipe(a);
  const kill = () => {
    a.destroy();
    b.destroy();
  };
  const finish = (other: Duplex) => () => {
    if (other.destroyed) return;
    other.end();
    other.once("finish", () => other.destroy());
  };
  a.once("error", kill);
  b.once("error", kill);
  a.once("close", finish(b));
  b.once("close", finish(a));
  b.setTimeout(idleMs, kill);
  if ("setTimeout" in a && typeof a.setTimeout === "function") {
    (a as Socket).setTimeout(idleMs, kill);
  }
}

/** `METHOD http://host[:port]/path` — a plain-HTTP request for another host. */
export async function handlePlain(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const reply = (status: 400 | 403 | 502, body: string) => {
    if (res.headersSent) res.destroy();
    else res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
  };
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return reply(400, "forge egress: not a URL\n");
  }
  if (url.protocol !== "http:") {
    return reply(400, "forge egress: only http:// in absolute form; https goes through CONNECT\n");
  }
  if (url.username || url.password) return reply(400, "forge egress: no credentials in the URL\n");
  const port = url.port ? Number(url.port) : 80;
  const a = await admit(ctx, url.hostname, port);
  if (!a.ok) return reply(a.status, a.body);
  let socket: Socket;
  try {
    socket = await connectChecked(ctx, a.host, port, a.addresses);
  } catch (error) {
    return reply(502, `forge egress: ${(error as Error).message}\n`);
  }
  const up = request({
    createConnection: () => socket,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    // A proxy replaces the Host header with the request target's (RFC 9112 3.2.2).
    headers: { ...endToEndHeaders(req.headers), host: url.host, connection: "close" },
  });
  pipeExchange(req, res, up, ctx.idleTimeoutMs, (error) =>
    reply(502, `forge egress: ${error.message}\n`),
  );
}

/**
 * Streams a request to `up` and its response back, chunk by chunk (no buffering: the model's
 * answers arrive as server-sent events). A client that goes away ends the upstream request.
 */
export function pipeExchange(
  req: IncomingMessage,
  res: ServerResponse,
  up: ReturnType<typeof request>,
  idleMs: number,
  onError: (error: Error) => void,
): void {
  up.setTimeout(idleMs, () => up.destroy(new Error("the upstream was silent too long")));
  up.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.headers));
    res.flushHeaders();
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  up.on("error", onError);
  res.on("close", () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
}
