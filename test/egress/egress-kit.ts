// Real sockets for the egress tests: a canary that records every connection it sees, a proxy
// on a Unix socket in a temp directory, clients that speak to it the way a box's tools do, and
// a lookup that records every name it is asked (a name that is not allowed must never be).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, request } from "node:http";
import { connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEgressEntry } from "../../src/egress/allowlist.js";
import {
  type EgressProxy,
  type EgressProxyOptions,
  startEgressProxy,
} from "../../src/egress/proxy.js";
import type { EgressLookup, ResolvedAddress } from "../../src/egress/resolve.js";

export interface Canary {
  port: number;
  /** TCP connections accepted (a refused target must leave this at 0). */
  connections: number;
  /** Request heads seen: method, url and headers. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

/**
 * An HTTP server on the host's loopback that answers "canary <path>" — or, for /redirect?to=X,
 * a 302 to X — and counts every TCP connection, HTTP or not.
 */
export async function startCanary(): Promise<Canary> {
  const sockets = new Set<Socket>();
  const canary: Canary = {
    port: 0,
    connections: 0,
    requests: [],
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createHttpServer((req, res) => {
    canary.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to");
    if (to) res.writeHead(302, { location: to }).end();
    else res.end(`canary ${req.url}`);
  });
  server.on("connection", (s: Socket) => {
    canary.connections++;
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  canary.port = (server.address() as { port: number }).port;
  return canary;
}

export interface RecordingLookup {
  lookup: EgressLookup;
  /** Every name asked, in order. */
  asked: string[];
}

/** A resolver with fixed answers; a name it does not know fails like DNS would (ENOTFOUND). */
export function recordingLookup(answers: Record<string, string[]>): RecordingLookup {
  const asked: string[] = [];
  const lookup: EgressLookup = async (host) => {
    asked.push(host);
    const list = answers[host];
    if (!list)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return list.map(
      (address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }),
    );
  };
  return { lookup, asked };
}

export interface ProxyUnderTest {
  proxy: EgressProxy;
  socketPath: string;
  dir: string;
  close(): Promise<void>;
}

export async function startProxy(
  entries: string[],
  extra: Partial<EgressProxyOptions> = {},
): Promise<ProxyUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), "forge-egress-"));
  const socketPath = join(dir, "egress.sock");
  const proxy = await startEgressProxy({
    socketPath,
    rules: entries.map(parseEgressEntry),
    ...extra,
  });
  return {
    proxy,
    socketPath,
    dir,
    close: async () => {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ConnectResult {
  status: number;
  body: string;
  /** The tunnel, when the proxy answered 200. */
  socket?: Socket;
}

/** `CONNECT target` over the Unix socket, with an optional Host header of its own. */
export function connectVia(
  socketPath: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<ConnectResult> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      method: "CONNECT",
      path: target,
      headers: { host: target, ...headers },
    });
    req.on("connect", (res: IncomingMessage, socket: Socket, head: Buffer) => {
      if (res.statusCode === 200) {
        // Bytes the target sent at once arrive with the proxy's answer: give them back.
        if (head.length) socket.unshift(head);
        return resolve({ status: 200, body: "", socket });
      }
      // The refusal's body: what node read past the head, then the rest.
      let body = head.toString("utf8");
      socket.on("data", (d: Buffer) => {
        body += d.toString("utf8");
      });
      socket.on("close", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** One HTTP/1.1 exchange written by hand over a tunnel (what a client does after CONNECT). */
export function httpOverSocket(socket: Socket, host: string, path = "/"): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.on("data", (d: Buffer) => {
      text += d.toString("utf8");
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
    socket.end(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

export interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A request over the Unix socket: absolute-form `url` for proxying, or a path for the gateway. */
export function requestVia(
  socketPath: string,
  target: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const host = target.startsWith("/") ? "127.0.0.1:28080" : new URL(target).host;
    const req = request({
      socketPath,
      method: o.method ?? "GET",
      path: target,
      headers: { host, ...o.headers },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => {
        body += d.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(o.body);
  });
}

/** Writes raw bytes to the proxy and collects what comes back until it closes the socket. */
export function rawExchange(socketPath: string, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let text = "";
    s.on("data", (d: Buffer) => {
      text += d.toString("latin1");
    });
    s.on("close", () => resolve(text));
    s.on("error", reject);
    s.write(bytes);
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((r) => server.close(() => r()));
}
