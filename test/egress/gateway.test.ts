// The model gateway: origin-form requests from the box reach the real endpoint with the real
// credential instead of the box's placeholder, and the model's answer streams back unbuffered.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PLACEHOLDER_CREDENTIAL } from "../../src/egress/relay-command.js";
import { fake } from "../secrets/fake-secrets.js";
import { type ProxyUnderTest, recordingLookup, requestVia, startProxy } from "./egress-kit.js";

const REAL_KEY = fake.anthropicKey();

interface Model {
  server: Server;
  port: number;
  seen: { url: string; headers: IncomingMessage["headers"]; body: string }[];
  connections: number;
  /** Lets the streamed answer finish (the test calls it once the first event arrived). */
  release(): void;
}

/** A model endpoint: /v1/messages answers with two SSE events, the second held until released. */
async function startModel(tls?: { key: Buffer; cert: Buffer }): Promise<Model> {
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const model: Model = {
    server: undefined as unknown as Server,
    port: 0,
    seen: [],
    connections: 0,
    release: () => release(),
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString("utf8");
    });
    req.on("end", () => {
      model.seen.push({ url: req.url ?? "", headers: req.headers, body });
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write('event: message_start\ndata: {"type":"message_start"}\n\n');
      void held.then(() => res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    });
  };
  model.server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  model.server.on(tls ? "secureConnection" : "connection", () => {
    model.connections++;
  });
  await new Promise<void>((r) => model.server.listen(0, "127.0.0.1", r));
  model.port = (model.server.address() as { port: number }).port;
  return model;
}

let px: ProxyUnderTest | undefined;
let model: Model | undefined;
afterEach(async () => {
  model?.release();
  await px?.close();
  px = undefined;
  model?.server.closeAllConnections?.();
  await new Promise<void>((r) => (model ? model.server.close(() => r()) : r()));
  model = undefined;
});

const placeholders = {
  "x-api-key": PLACEHOLDER_CREDENTIAL,
  authorization: `Bearer ${PLACEHOLDER_CREDENTIAL}`,
  "anthropic-version": "2023-06-01",
  "content-type": "application/json",
};

describe("egress proxy: model gateway", () => {
  it("replaces the placeholder x-api-key and authorization with the real credential", async () => {
    model = await startModel();
    px = await startProxy([], {
      gateway: { upstream: `http://127.0.0.1:${model.port}`, headers: { "x-api-key": REAL_KEY } },
    });
    model.release();
    const a = await requestVia(px.socketPath, "/v1/messages?beta=true", {
      method: "POST",
      headers: placeholders,
      body: '{"model":"m"}',
    });
    expect(a.status).toBe(200);
    const seen = model.seen[0];
    expect(seen?.url).toBe("/v1/messages?beta=true");
    expect(seen?.headers["x-api-key"]).toBe(REAL_KEY);
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen?.headers.host).toBe(`127.0.0.1:${model.port}`);
    expect(seen?.body).toBe('{"model":"m"}');
    expect(JSON.stringify(seen?.headers)).not.toContain(PLACEHOLDER_CREDENTIAL);
  });

  it("a bearer credential: authorization replaced, the placeholder x-api-key dropped; a path prefix kept", async () => {
    model = await startModel();
    px = await startProxy([], {
      gateway: {
        upstream: `http://127.0.0.1:${model.port}/anthropic/`,
        headers: { authorization: `Bearer ${REAL_KEY}` },
      },
    });
    model.release();
    await requestVia(px.socketPath, "/v1/messages", {
      method: "POST",
      headers: placeholders,
      body: "{}",
    });
    expect(model.seen[0]?.url).toBe("/anthropic/v1/messages");
    expect(model.seen[0]?.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    expect(model.seen[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("streams the answer event by event: the first arrives while the endpoint still holds the rest", async () => {
    model = await startModel();
    px = await startProxy([], {
      gateway: { upstream: `http://127.0.0.1:${model.port}`, headers: { "x-api-key": REAL_KEY } },
    });
    const events: string[] = [];
    const socketPath = px.socketPath;
    const done = new Promise<void>((resolve, reject) => {
      const req = request({
        socketPath,
        method: "POST",
        path: "/v1/messages",
        headers: { ...placeholders, host: "127.0.0.1:28080" },
      });
      req.on("response", (res) => {
        expect(res.headers["content-type"]).toBe("text/event-stream");
        res.on("data", (d: Buffer) => {
          events.push(d.toString("utf8"));
          // Only now may the endpoint finish: a proxy that buffered the whole answer would
          // never deliver this first event, and the test would time out.
          if (events.length === 1) model?.release();
        });
        res.on("end", () => resolve());
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end("{}");
    });
    await Promise.race([
      done,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the first event never came through")), 5000),
      ),
    ]);
    expect(events[0]).toMatch(/message_start/);
    expect(events.join("")).toMatch(/message_stop/);
  });

  it("keeps the upstream connection alive across model turns", async () => {
    model = await startModel();
    model.release();
    px = await startProxy([], {
      gateway: { upstream: `http://127.0.0.1:${model.port}`, headers: { "x-api-key": REAL_KEY } },
    });
    for (let i = 0; i < 3; i++) {
      expect(
        (await requestVia(px.socketPath, "/v1/messages", { method: "POST", body: "{}" })).status,
      ).toBe(200);
    }
    expect(model.connections).toBe(1);
  });

  it("refuses an endpoint NAME that resolves to a private address, with a denial", async () => {
    const dns = recordingLookup({ "llm.corp.example": ["10.0.0.8"] });
    px = await startProxy([], {
      lookup: dns.lookup,
      gateway: { upstream: "http://llm.corp.example:8080", headers: { "x-api-key": REAL_KEY } },
    });
    const a = await requestVia(px.socketPath, "/v1/messages", { method: "POST", body: "{}" });
    expect(a.status).toBe(403);
    expect(a.body).toMatch(/resolves to 10\.0\.0\.8, a private address/);
    expect(dns.asked).toEqual(["llm.corp.example"]);
    expect(px.proxy.denials()).toMatchObject([{ host: "llm.corp.example", port: 8080 }]);
  });

  it("speaks TLS to an https endpoint, verifying its certificate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-gw-tls-"));
    try {
      const tls = selfSigned(dir);
      model = await startModel(tls);
      model.release();
      const dns = recordingLookup({ localhost: ["127.0.0.1"] });
      const upstream = `https://localhost:${model.port}`;
      px = await startProxy([], {
        lookup: dns.lookup,
        gateway: { upstream, headers: { "x-api-key": REAL_KEY }, ca: tls.cert },
      });
      const a = await requestVia(px.socketPath, "/v1/messages", {
        method: "POST",
        headers: placeholders,
        body: "{}",
      });
      expect(a.status).toBe(200);
      expect(a.body).toMatch(/message_stop/);
      expect(model.seen[0]?.headers["x-api-key"]).toBe(REAL_KEY);
      await px.close();
      // Without the test's CA the certificate is not trusted: the gateway does verify.
      px = await startProxy([], {
        lookup: dns.lookup,
        gateway: { upstream, headers: { "x-api-key": REAL_KEY } },
      });
      const untrusted = await requestVia(px.socketPath, "/v1/messages", {
        method: "POST",
        body: "{}",
      });
      expect(untrusted.status).toBe(502);
      expect(untrusted.body).toMatch(/self-signed|certificate/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to start with an endpoint that is not http(s) or names the unspecified address", async () => {
    await expect(
      startProxy([], { gateway: { upstream: "ftp://x.example", headers: {} } }),
    ).rejects.toThrow(/http or https/);
    await expect(
      startProxy([], { gateway: { upstream: "http://0.0.0.0:9", headers: {} } }),
    ).rejects.toThrow(/unspecified/);
  });
});

/** A throw-away certificate for localhost and 127.0.0.1 (openssl; no key is kept in the repo). */
function selfSigned(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, "key");
  const cert = join(dir, "cert");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}
