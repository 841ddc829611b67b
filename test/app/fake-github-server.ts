/**
 * A fake GitHub Enterprise Server on loopback, for the real `forge serve` (GHE_HOST /
 * GHE_PROTOCOL=http): the REST API under /api/v3 and GraphQL at /api/graphql answered by
 * github-state.ts, every API request recorded and checked against GitHub's GHES description;
 * and the git side at /<owner>/<repo>.git served by the real `git http-backend` (CGI) from
 * bare repositories — accepting only the installation tokens the fake itself issued.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkRequest } from "../harness/openapi-check.js";
import type { GitHubState } from "./github-state.js";

export interface RecordedApiRequest {
  method: string;
  /** Full path with the /api/v3 prefix and query, as sent. */
  path: string;
  /** Path below the prefix, without query. */
  pathname: string;
  body: unknown;
  authorization: string;
  status: number;
  problems: string[];
}

export interface RecordedGitRequest {
  method: string;
  path: string;
  authorized: boolean;
  status: number;
}

export interface FakeGitHubServer {
  host: string;
  port: number;
  api: RecordedApiRequest[];
  git: RecordedGitRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startFakeGitHub(options: {
  state: GitHubState;
  gitRoot: string;
}): Promise<FakeGitHubServer> {
  const { state } = options;
  const api: RecordedApiRequest[] = [];
  const gitLog: RecordedGitRequest[] = [];

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer) {
    const text = raw.toString("utf8");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const graphql = url.pathname === "/api/graphql";
    const pathname = graphql ? "/graphql" : url.pathname.replace(/^\/api\/v3/, "");
    const method = (req.method ?? "GET").toUpperCase();
    const check = checkRequest({ method, path: url.pathname + url.search, body });
    const authorization = String(req.headers.authorization ?? "");
    const rec: RecordedApiRequest = {
      method,
      path: url.pathname + url.search,
      pathname,
      body,
      authorization,
      status: 0,
      problems: check.ok ? [] : check.problems,
    };
    api.push(rec);
    const send = (status: number, payload: unknown) => {
      rec.status = status;
      res
        .writeHead(status, { "content-type": "application/json; charset=utf-8" })
        .end(payload === undefined ? "" : JSON.stringify(payload));
    };
    if (!check.ok)
      return send(422, { message: `Invalid request.\n\n${check.problems.join("\n")}` });
    // The token endpoint takes the App's JWT; everything else an installation token we issued.
    const tokenEndpoint = /^\/app\/installations\/\d+\/access_tokens$/.test(pathname);
    const bearer = /^bearer [\w-]+\.[\w-]+\.[\w-]+$/i.test(authorization);
    const token = authorization.replace(/^(token|bearer) /i, "");
    if (tokenEndpoint ? !bearer : !state.tokens.includes(token)) {
      return send(401, {
        message: "Bad credentials",
        documentation_url: "https://docs.github.com/rest",
      });
    }
    const answer = state.handle(method, pathname + url.search, body);
    send(answer.status, answer.body);
  }

  async function handleGit(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer) {
    const auth = String(req.headers.authorization ?? "");
    const decoded = auth.startsWith("Basic ")
      ? Buffer.from(auth.slice(6), "base64").toString("utf8")
      : "";
    const authorized =
      decoded.startsWith("x-access-token:") &&
      state.tokens.includes(decoded.slice("x-access-token:".length));
    const rec: RecordedGitRequest = {
      method: req.method ?? "GET",
      path: url.pathname + url.search,
      authorized,
      status: 0,
    };
    gitLog.push(rec);
    if (!authorized) {
      rec.status = 401;
      res.writeHead(401, { "www-authenticate": 'Basic realm="fake GitHub"' }).end("unauthorized");
      return;
    }
    const child = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: options.gitRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ""),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: String(req.headers["content-type"] ?? ""),
        CONTENT_LENGTH: String(raw.length),
        // http-backend allows receive-pack (push) only for an authenticated user.
        REMOTE_USER: "x-access-token",
        REMOTE_ADDR: "127.0.0.1",
        ...(req.headers["content-encoding"]
          ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) }
          : {}),
        ...(req.headers["git-protocol"]
          ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) }
          : {}),
      },
    });
    const out: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    // http-backend may exit (or not read at all, for a GET) before taking the body.
    child.stdin.on("error", () => {});
    child.stdin.end(raw);
    await new Promise<void>((resolve) => child.on("close", () => resolve()));
    const all = Buffer.concat(out);
    let split = all.indexOf("\r\n\r\n");
    let sep = 4;
    if (split < 0) {
      split = all.indexOf("\n\n");
      sep = 2;
    }
    const head = all.subarray(0, Math.max(split, 0)).toString("utf8");
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of head.split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i < 0) continue;
      const k = line.slice(0, i).trim();
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === "status") status = Number.parseInt(v, 10);
      else headers[k] = v;
    }
    rec.status = status;
    res.writeHead(status, headers).end(all.subarray(split + sep));
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const raw = await readBody(req);
      if (url.pathname.startsWith("/api/v3/") || url.pathname === "/api/graphql")
        await handleApi(req, res, url, raw);
      else if (/^\/[^/]+\/[^/]+\.git\//.test(url.pathname)) await handleGit(req, res, url, raw);
      else res.writeHead(404).end();
    })().catch((err) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    host: `127.0.0.1:${port}`,
    port,
    api,
    git: gitLog,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
