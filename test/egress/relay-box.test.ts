// The whole door in a real bwrap box with its own network namespace: the relay on the box's
// loopback, the proxy's Unix socket bound in, a canary and a model endpoint on the HOST's
// loopback. Needs `npm run build` (dist/egress-relay.cjs).
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { execInBox } from "../../src/boxes/box-exec.js";
import { type BoxUser, handToBox } from "../../src/boxes/box-user.js";
import { createBox } from "../../src/boxes/create-box.js";
import { PROXY_SOCKET_IN_BOX } from "../../src/boxes/network.js";
import {
  gatewayEnv,
  proxyEnv,
  RELAY_PORT_IN_BOX,
  withRelay,
} from "../../src/egress/relay-command.js";
import { tempDir } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";
import { type Canary, type ProxyUnderTest, startCanary, startProxy } from "./egress-kit.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BUILT_RELAY = join(ROOT, "dist", "egress-relay.cjs");
const BUILT_PERL_RELAY = join(ROOT, "bin", "forge-egress-relay.pl");
const NODE = process.execPath;
const PATH = "/usr/local/bin:/usr/bin:/bin";
const REAL_KEY = fake.anthropicKey();
const isRoot = process.getuid?.() === 0;
const USER: BoxUser = isRoot
  ? { uid: 70000, gid: 70000, switched: true }
  : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, switched: false };

let t: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;
/** A copy of the relay under a path unique to this test: the host can tell its process apart. */
let relayScript: string;
/** The same for perl's relay. */
let perlRelay: string;
let canary: Canary;
let px: ProxyUnderTest;
let model: Server;
let modelPort: number;
const modelSeen: IncomingMessage["headers"][] = [];

beforeAll(() => {
  if (!existsSync(BUILT_RELAY)) throw new Error(`${BUILT_RELAY} is missing: run npm run build`);
});

beforeEach(async () => {
  t = tempDir("forge-relay-box-");
  workspace = join(t.dir, "ws");
  home = join(t.dir, "home");
  const tools = join(t.dir, "tools");
  for (const d of [workspace, home, tools]) mkdirSync(d);
  chmodSync(t.dir, 0o755);
  chmodSync(tools, 0o755);
  relayScript = join(tools, "egress-relay.cjs");
  copyFileSync(BUILT_RELAY, relayScript);
  perlRelay = join(tools, "forge-egress-relay.pl");
  copyFileSync(BUILT_PERL_RELAY, perlRelay);
  copyFileSync(join(import.meta.dirname, "box-probe.cjs"), join(workspace, "probe.cjs"));
  await handToBox(workspace, USER);
  await handToBox(home, USER);
  canary = await startCanary();
  modelSeen.length = 0;
  model = createServer((req, res) => {
    modelSeen.push(req.headers);
    res.writeHead(200, { "content-type": "text/event-stream" }).end("event: message_stop\n\n");
  });
  await new Promise<void>((r) => model.listen(0, "127.0.0.1", r));
  modelPort = (model.address() as { port: number }).port;
  px = await startProxy([`127.0.0.1:${canary.port}`], {
    socketOwner: { uid: USER.uid, gid: USER.gid },
    gateway: { upstream: `http://127.0.0.1:${modelPort}`, headers: { "x-api-key": REAL_KEY } },
  });
});

afterEach(async () => {
  await px.close();
  await canary.close();
  await new Promise<void>((r) => model.close(() => r()));
  t.cleanup();
});

/** Which relay: node's (the command waits for it), or perl's (its port listens first). */
let perl: string | undefined;

function boxed(command: string, args: string[], timeoutMs = 30_000, relay?: string) {
  const box = createBox("bwrap", {
    workspace,
    home,
    allowNetwork: false,
    network: { mode: "proxy", proxySocket: px.socketPath },
    user: USER,
    toolchainPaths: [join(t.dir, "tools")],
  });
  const cmd = withRelay(
    { command, args },
    {
      port: RELAY_PORT_IN_BOX,
      socketInBox: PROXY_SOCKET_IN_BOX,
      node: NODE,
      relayScript: perl ? relayScript : (relay ?? relayScript),
      ...(perl ? { perl: { perl, script: relay ?? perlRelay } } : {}),
    },
  );
  return execInBox(
    box,
    {
      ...cmd,
      cwd: workspace,
      env: { PATH, HOME: home, ...proxyEnv(), ...gatewayEnv("api-key") },
    },
    { timeoutMs },
  );
}

/** Host processes running this test's relay copy (its path is unique to the test). */
function relaysOnHost(): number {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const arg = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[1];
        return arg === relayScript || arg === perlRelay;
      } catch {
        return false;
      }
    }).length;
}

const STARTS: Array<[string, string | undefined]> = [
  ["node, waited for", undefined],
  // Debian's perl-base is essential; elsewhere the runner falls back to node alone.
  ...(existsSync("/usr/bin/perl") ? [["perl", "/usr/bin/perl"] as [string, string]] : []),
];

describe.each(STARTS)(
  "the relay (%s) in a bwrap box with its own network namespace",
  (_how, how) => {
    beforeEach(() => {
      perl = how;
    });

    it("reaches the allowed canary and the model only through the door; nothing else gets out", async () => {
      const r = await boxed(NODE, ["probe.cjs", String(canary.port)]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      // Through the relay and the proxy: plain HTTP and a CONNECT tunnel to the allowed canary.
      expect(out.plain).toEqual({ status: 200, body: "canary /plain" });
      expect(out.tunnel.status).toBe(200);
      expect(out.tunnel.body).toMatch(/canary \/tunnel$/);
      expect(canary.connections).toBe(2);
      // Refused by the proxy, and journaled.
      expect(out.deniedTunnel.status).toBe(403);
      expect(out.deniedName.status).toBe(403);
      expect(px.proxy.denials().map((d) => `${d.host}:${d.port}`)).toEqual([
        `127.0.0.1:${canary.port + 1}`,
        "exfil.example.net:443",
      ]);
      // The model through the gateway: the endpoint saw the real key, the box only a placeholder.
      expect(out.model.status).toBe(200);
      expect(modelSeen[0]?.["x-api-key"]).toBe(REAL_KEY);
      expect(r.stdout).not.toContain(REAL_KEY);
      // No way around the door: the box's loopback is its own, there is no route out, no resolver.
      expect(out.directCanary.error).toBe("ECONNREFUSED");
      expect(out.directPublic.error).toBe("ENETUNREACH");
      expect(out.lookup.error).toMatch(/^(EAI_AGAIN|ENOTFOUND|ECONNREFUSED)$/);
      expect(out.lookup.ms).toBeLessThan(1000);
      expect(out.localhost.address).toBe("127.0.0.1");
      expect(out.resolvConf).toBeNull();
      expect(canary.connections).toBe(2);
      expect(out.relays).toBe(1);
    });

    it("the relay ends with the box: after a normal exit and after the box is killed", async () => {
      const ok = await boxed("/bin/sh", ["-c", "exit 3"]);
      expect(ok.code, ok.stderr).toBe(3);
      // The door says nothing of its own on the box's stderr (an agent's or a control's output).
      expect(ok.stderr).toBe("");
      // The box's init ends everything left in its PID namespace as it exits.
      for (let i = 0; i < 50 && relaysOnHost() > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(relaysOnHost()).toBe(0);
      const killed = await boxed("/bin/sh", ["-c", "sleep 30"], 1500);
      expect(killed.timedOut).toBe(true);
      // The kill reaches the box's PID-namespace init; the kernel then ends everything in it.
      for (let i = 0; i < 50 && relaysOnHost() > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(relaysOnHost()).toBe(0);
    });

    it("the command starts only once the relay's port listens (its first connection does not race)", async () => {
      // The box's very first instruction reads the box's own socket table: the relay's port must
      // already be listening (state 0A). cat starts in a millisecond, node in tens: without the
      // wait the port would not be there yet.
      const r = await boxed("/bin/cat", ["/proc/net/tcp"]);
      const port = RELAY_PORT_IN_BOX.toString(16).toUpperCase().padStart(4, "0");
      expect(r.stdout).toMatch(new RegExp(`^\\s*\\d+: 0100007F:${port} 00000000:0000 0A `, "m"));
    });

    it("a relay that cannot start stops the box with a message instead of running the command", async () => {
      const r = await boxed("/bin/echo", ["ran"], 30_000, "/nonexistent/egress-relay");
      expect(r.code).not.toBe(0);
      expect(r.stdout).not.toContain("ran");
      expect(r.stderr).toMatch(perl ? /Can't open perl script/ : /the egress relay did not start/);
    });

    it.skipIf(!hasCurl())(
      "curl in the box: http_proxy and HTTPS_PROXY work, a direct request does not",
      async () => {
        const script = [
          `curl -sS -m 5 http://127.0.0.1:${canary.port}/curl-plain; echo " plain=$?"`,
          `curl -sS -m 5 -p http://127.0.0.1:${canary.port}/curl-tunnel; echo " tunnel=$?"`,
          `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${canary.port}/direct; echo " direct=$?"`,
          `curl -sS -m 5 -o /dev/null -p http://exfil.example.net/; echo " denied=$?"`,
        ].join("; ");
        // NO_PROXY keeps 127.0.0.1 in the box for the project's own servers; for this probe only the
        // canary's address must go through the proxy.
        const r = await boxed("/bin/sh", [
          "-c",
          `NO_PROXY= no_proxy= ; export NO_PROXY no_proxy; ${script}`,
        ]);
        expect(r.stdout).toMatch(/canary \/curl-plain plain=0/);
        expect(r.stdout).toMatch(/canary \/curl-tunnel tunnel=0/);
        expect(r.stdout).toMatch(/direct=7/);
        expect(r.stdout).toMatch(/denied=56/);
        expect(r.stderr).toMatch(/CONNECT tunnel failed, response 403/);
        expect(px.proxy.denials().map((d) => d.host)).toEqual(["exfil.example.net"]);
      },
    );
  },
);

function hasCurl(): boolean {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
