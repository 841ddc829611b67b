// A box's one door to the network (SPEC R4.6): an HTTP/1.1 proxy on a Unix socket (no TCP port
// on the host, so no other box can reach it). It speaks three forms:
// - `CONNECT host:port` — a tunnel, judged on the target (forward.ts);
// - `GET http://host/path` — plain-HTTP proxying, judged the same way (forward.ts);
// - `POST /v1/messages` (origin form, any Host) — the model gateway (gateway.ts).
// node:http does the parsing (llhttp: header limits, garbage refused with 400).
import { chmodSync, chownSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { EgressRule } from "./allowlist.js";
import { handleConnect, handlePlain } from "./forward.js";
import { createGateway, type Gateway, type GatewayOptions, noGateway } from "./gateway.js";
import type { ProxyContext } from "./proxy-context.js";
import { defaultLookup, type EgressLookup } from "./resolve.js";

export interface EgressDenial {
  host: string;
  port: number;
  reason: string;
  /** ISO time of the refusal. */
  at: string;
}

export interface EgressProxyOptions {
  /** Where to listen: a Unix socket path in a directory only the runner and the box user reach. */
  socketPath: string;
  rules: EgressRule[];
  /** Origin-form requests go here with the real credential; without it they are refused. */
  gateway?: GatewayOptions;
  /** Called on every refusal (the runner journals them as egress.denied). */
  onDenied?(d: EgressDenial): void;
  /** Every address of a name (default: the host's resolver, all addresses). */
  lookup?: EgressLookup;
  /** The box user: the socket becomes theirs, mode 0600 (the runner's own uid otherwise). */
  socketOwner?: { uid: number; gid: number };
  /** Connecting to a target or the model endpoint (default 10 s). */
  connectTimeoutMs?: number;
  /** No byte either way on a tunnel or a response (default 10 min: a model may think long). */
  idleTimeoutMs?: number;
  /** Largest request head accepted, in bytes (default 16 KiB; more → 431). */
  maxHeaderBytes?: number;
  /** Time to send a whole request head (default 30 s). */
  headersTimeoutMs?: number;
}

export interface EgressProxy {
  socketPath: string;
  /** The first MAX_DENIALS refusals; stats().denied counts them all. */
  denials(): EgressDenial[];
  stats(): { connections: number; requests: number; denied: number };
  close(): Promise<void>;
}

export const MAX_DENIALS = 200;

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout"],
};

export async function startEgressProxy(o: EgressProxyOptions): Promise<EgressProxy> {
  const kept: EgressDenial[] = [];
  const counts = { connections: 0, requests: 0, denied: 0 };
  const live = new Set<Socket | Duplex>();
  const ctx: ProxyContext = {
    rules: [...o.rules],
    lookup: o.lookup ?? defaultLookup,
    connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: o.idleTimeoutMs ?? 600_000,
    deny(host, port, reason) {
      const d = { host, port, reason, at: new Date().toISOString() };
      counts.denied++;
      if (kept.length < MAX_DENIALS) kept.push(d);
      try {
        o.onDenied?.(d);
      } catch {
        // A broken observer must not take the door down with it.
      }
    },
    track(socket) {
      // A keep-alive socket to the model endpoint comes back for every request: once is enough.
      if (socket.destroyed || live.has(socket)) return;
      live.add(socket);
      socket.once("close", () => live.delete(socket));
    },
  };
  const gateway: Gateway | undefined = o.gateway ? createGateway(o.gateway, ctx) : undefined;

  const server = createServer({
    maxHeaderSize: o.maxHeaderBytes ?? 16 * 1024,
    headersTimeout: o.headersTimeoutMs ?? 30_000,
    requestTimeout: 0, // a streamed request may take long; idle limits apply instead
    keepAliveTimeout: 5_000,
  });
  server.on("connection", (socket: Socket) => {
    counts.connections++;
    ctx.track(socket);
  });
  server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    counts.requests++;
    void handleConnect(ctx, req, socket, head).catch(() => socket.destroy());
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    counts.requests++;
    if (!(req.url ?? "").startsWith("/"))
      void handlePlain(ctx, req, res).catch(() => res.destroy());
    else if (gateway) gateway.handle(req, res);
    else noGateway(ctx, req, res);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A bad request line, a head too large, a slow head: answer if still possible, then close.
    const [code, text] = CLIENT_ERRORS[error.code ?? ""] ?? [400, "Bad Request"];
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(`HTTP/1.1 ${code} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    // Destroyed once written, or soon anyway: a client that does not read must not keep it.
    socket.once("finish", () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.socketPath, () => {
      server.removeListener("error", reject);
      resolve();
    });
  });
  try {
    chmodSync(o.socketPath, 0o600);
    if (o.socketOwner) chownSync(o.socketPath, o.socketOwner.uid, o.socketOwner.gid);
  } catch (error) {
    server.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    socketPath: o.socketPath,
    denials: () => [...kept],
    stats: () => ({ ...counts }),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        gateway?.close();
        for (const s of live) s.destroy();
        live.clear();
      }).then(() => rmSync(o.socketPath, { force: true }));
      return closing;
    },
  };
}
