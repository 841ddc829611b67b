/**
 * The real `forge serve` as a child process (bin/forge.js → dist/cli.js → Probot's `run`),
 * pointed at a fake GitHub through GHE_HOST/GHE_PROTOCOL, and signed webhook deliveries to it.
 * The App key is generated at test time; the secrets are built at run time, never literals.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { REPO_ROOT } from "../harness/claude-run.js";

export interface ServeProcess {
  port: number;
  secret: string;
  logs: string[];
  child: ChildProcess;
  deliver(
    name: string,
    payload: unknown,
    options?: { id?: string; signature?: string },
  ): Promise<{ status: number; ms: number; id: string }>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface AppCredentials {
  privateKey: string;
  secret: string;
}

/** A new App key and webhook secret, made at test time. */
export function appCredentials(): AppCredentials {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKey, secret: randomBytes(20).toString("hex") };
}

export async function startServeProcess(options: {
  gheHost: string;
  forgeHome: string;
  modelUrl: string;
  env?: Record<string, string>;
  /** Replicas of one App share its key and webhook secret (appCredentials()). */
  app?: AppCredentials;
}): Promise<ServeProcess> {
  const { privateKey, secret } = options.app ?? appCredentials();
  const port = await freePort();
  const logs: string[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const child = spawn(process.execPath, [join(REPO_ROOT, "bin", "forge.js"), "serve"], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.forgeHome,
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: secret,
      GHE_HOST: options.gheHost,
      GHE_PROTOCOL: "http",
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      FORGE_HOME: options.forgeHome,
      FORGE_GATE_SECRET: randomBytes(32).toString("hex"),
      FORGE_APP_SLUG: "forgechain",
      ANTHROPIC_BASE_URL: options.modelUrl,
      ANTHROPIC_API_KEY: `forge-test-${randomBytes(4).toString("hex")}`,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue;
        logs.push(line);
        if (line.includes("forgechain is serving")) resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`forge serve exited ${code}:\n${logs.join("\n")}`)),
    );
  });
  await ready;

  return {
    port,
    secret,
    logs,
    child,
    async deliver(name, payload, o = {}) {
      const body = JSON.stringify(payload);
      const id = o.id ?? randomUUID();
      const signature =
        o.signature ?? `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      const started = performance.now();
      // node:http with one write and no Nagle: fetch (undici) sends the body in a second
      // segment, and the delayed ACK adds ~40 ms that are the client's, not the server's.
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            path: "/api/github/webhooks",
            method: "POST",
            agent,
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body),
              "x-github-event": name,
              "x-github-delivery": id,
              "x-hub-signature-256": signature,
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("socket", (socket) => socket.setNoDelay(true));
        req.on("error", reject);
        req.end(body);
      });
      const res = { status };
      return { status: res.status, ms: performance.now() - started, id };
    },
    async stop() {
      agent.destroy();
      // Killed (kill -9 in a test) or exited: there is no exit left to wait for.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
