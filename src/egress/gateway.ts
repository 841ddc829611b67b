// The model gateway: the box's own door to the harness endpoint. The agent in the box holds a
// placeholder credential and sends origin-form requests (`POST /v1/messages`) to the relay; here
// the placeholder is dropped, the real credential added, and the request streamed on to the
// real endpoint (TLS when it is https) — so the real key never enters the box, the way
// codex-action keeps its key in a separate proxy process.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { canonicalIp, classifyAddress } from "./allowlist.js";
import { pipeExchange } from "./forward.js";
import {
  endToEndHeaders,
  type ProxyContext,
  parseAuthority,
  refusalBody,
} from "./proxy-context.js";
import { checkedGatewayLookup, EgressRefusal } from "./resolve.js";

export interface GatewayOptions {
  /** The real ANTHROPIC_BASE_URL (http or https, optionally with a path prefix). */
  upstream: string;
  /** The real credential headers, e.g. { "x-api-key": key } or { authorization: "Bearer …" }. */
  headers: Record<string, string>;
  /** More trusted CA certificates for an https upstream (tests: a self-signed local server). */
  ca?: string | Buffer | (string | Buffer)[];
  /** The deployment's model gateway lives on its own network: a name may resolve privately. */
  allowPrivate?: boolean;
}

/** Headers a client's placeholder credential can travel in: always dropped. */
const CREDENTIAL_HEADERS = ["x-api-key", "authorization"];

export class GatewayConfigError extends Error {
  override readonly name = "GatewayConfigError";
}

export interface Gateway {
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

export function createGateway(g: GatewayOptions, ctx: ProxyContext): Gateway {
  const url = parseUpstream(g.upstream);
  const secure = url.protocol === "https:";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const literal = canonicalIp(host);
  if (literal && classifyAddress(literal) === "unspecified") {
    throw new GatewayConfigError(`the model endpoint ${g.upstream} names an unspecified address`);
  }
  const basePath = url.pathname.replace(/\/+$/, "");
  const drop = [...CREDENTIAL_HEADERS, ...Object.keys(g.headers).map((h) => h.toLowerCase())];
  // Keep-alive: each model turn is a new request, and a TLS handshake per turn would cost a
  // round trip or two. Every NEW connection resolves and checks the endpoint again.
  const agentOptions = {
    keepAlive: true,
    lookup: checkedGatewayLookup(ctx.lookup, g.allowPrivate ?? false),
    ...(g.ca ? { ca: g.ca } : {}),
  };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const send = secure ? httpsRequest : httpRequest;

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const reply = (status: number, body: string) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
    };
    if (!req.url?.startsWith("/")) {
      reply(400, "forge egress: not an origin-form request\n");
      return;
    }
    const up = send({
      agent,
      host,
      port,
      method: req.method,
      path: `${basePath}${req.url}`,
      headers: { ...endToEndHeaders(req.headers, drop), ...g.headers },
    });
    up.on("socket", (socket: Socket) => {
      ctx.track(socket);
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => socket.destroy(new Error("connecting to the model endpoint timed out")),
        ctx.connectTimeoutMs,
      );
      socket.once("connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    pipeExchange(req, res, up, ctx.idleTimeoutMs, (error) => {
      if (error instanceof EgressRefusal) {
        ctx.deny(host, port, error.reason);
        reply(403, refusalBody(host, port, error.reason));
      } else reply(502, `forge egress: the model endpoint: ${error.message}\n`);
    });
  }

  return { handle, close: () => agent.destroy() };
}

function parseUpstream(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GatewayConfigError(`the model endpoint "${text}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GatewayConfigError(`the model endpoint ${text} must be http or https`);
  }
  if (url.username || url.password) {
    throw new GatewayConfigError("the model endpoint's URL must not carry a user or password");
  }
  return url;
}

/** For the relay-less caller that sends origin-form without a gateway: refuse, and say why. */
export function noGateway(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): void {
  const named = String(req.headers.host ?? "");
  const { host, port } = parseAuthority(named) ?? { host: named || "(no host)", port: 80 };
  const reason = "no model gateway in this box: only proxy requests (CONNECT or http://…)";
  ctx.deny(host, port, reason);
  res
    .writeHead(403, { "content-type": "text/plain; charset=utf-8" })
    .end(refusalBody(host, port, reason));
}
