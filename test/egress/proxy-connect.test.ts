// The proxy's CONNECT door on a real Unix socket, against a real canary on the host's loopback.
import { statSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_DENIALS } from "../../src/egress/proxy.js";
import {
  type Canary,
  type ConnectResult,
  connectVia,
  httpOverSocket,
  type ProxyUnderTest,
  rawExchange,
  recordingLookup,
  startCanary,
  startProxy,
} from "./egress-kit.js";

let canary: Canary;
let px: ProxyUnderTest | undefined;

beforeEach(async () => {
  canary = await startCanary();
});
afterEach(async () => {
  await px?.close();
  px = undefined;
  await canary.close();
});

function tunnelOf(r: ConnectResult): Socket {
  if (!r.socket) throw new Error(`no tunnel: ${r.status} ${r.body}`);
  return r.socket;
}

describe("egress proxy: CONNECT", () => {
  it("tunnels to a loopback canary allowed by its exact host:port", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const r = await connectVia(px.socketPath, `127.0.0.1:${canary.port}`);
    expect(r.status).toBe(200);
    const answer = await httpOverSocket(tunnelOf(r), `127.0.0.1:${canary.port}`, "/through");
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toMatch(/canary \/through$/);
    expect(canary.connections).toBe(1);
    expect(px.proxy.denials()).toEqual([]);
    expect(px.proxy.stats()).toMatchObject({ connections: 1, requests: 1, denied: 0 });
  });

  it("tunnels to a bracketed IPv6 loopback target allowed by its exact rule", async (t) => {
    const v6 = createServer((s) => s.end("v6 canary"));
    const listening = await new Promise<boolean>((resolve) => {
      v6.once("error", () => resolve(false));
      v6.listen(0, "::1", () => resolve(true));
    });
    if (!listening) return t.skip("this host has no IPv6 loopback");
    try {
      const port = (v6.address() as { port: number }).port;
      px = await startProxy([`[::1]:${port}`]);
      const r = await connectVia(px.socketPath, `[0:0::1]:${port}`);
      expect(r.status).toBe(200);
      const text = await new Promise<string>((resolve) => {
        let got = "";
        r.socket?.on("data", (d: Buffer) => {
          got += d.toString("utf8");
        });
        r.socket?.on("end", () => resolve(got));
      });
      expect(text).toBe("v6 canary");
      expect((await connectVia(px.socketPath, `[::1]:${port + 1}`)).status).toBe(403);
    } finally {
      await new Promise<void>((resolve) => v6.close(() => resolve()));
    }
  });

  it("the socket is the runner's alone (mode 0600)", async () => {
    px = await startProxy([]);
    expect(statSync(px.socketPath).mode & 0o777).toBe(0o600);
  });

  it("a host that is not allowed gets 403 and a denial; the canary sees nothing", async () => {
    const seen: string[] = [];
    px = await startProxy([`127.0.0.1:${canary.port}`], {
      onDenied: (d) => seen.push(`${d.host}:${d.port}`),
    });
    const other = await connectVia(px.socketPath, `127.0.0.1:${canary.port + 1}`);
    const name = await connectVia(px.socketPath, `localhost:${canary.port}`);
    expect(other.status).toBe(403);
    expect(other.body).toMatch(/refused: not in this box's allowlist/);
    expect(name.status).toBe(403);
    expect(canary.connections).toBe(0);
    expect(seen).toEqual([`127.0.0.1:${canary.port + 1}`, `localhost:${canary.port}`]);
    const [d] = px.proxy.denials();
    expect(d).toMatchObject({ host: "127.0.0.1", port: canary.port + 1 });
    expect(Date.parse(d?.at ?? "")).not.toBeNaN();
  });

  it("a name that is not allowed is never looked up (a lookup alone leaks data out)", async () => {
    const dns = recordingLookup({ "allowed.example.org": ["203.0.113.9"] });
    px = await startProxy(["allowed.example.org"], { lookup: dns.lookup });
    const r = await connectVia(px.socketPath, "c2VjcmV0.exfil.example.net:443");
    expect(r.status).toBe(403);
    expect(dns.asked).toEqual([]);
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["169.254.169.254", "link-local"],
    ["::ffff:127.0.0.1", "loopback"],
  ])("an allowed *. name resolving to %s is refused (%s)", async (address, cls) => {
    const dns = recordingLookup({ "metadata.x.org": [address] });
    px = await startProxy([`*.x.org:${canary.port}`], { lookup: dns.lookup });
    const r = await connectVia(px.socketPath, `metadata.x.org:${canary.port}`);
    expect(r.status).toBe(403);
    expect(r.body).toContain(`resolves to ${address}, a ${cls} address`);
    expect(dns.asked).toEqual(["metadata.x.org"]);
    expect(canary.connections).toBe(0);
    expect(px.proxy.denials()[0]?.reason).toMatch(/a \*\. entry never does/);
  });

  it("one private address among public ones refuses the name (a rebinding answer)", async () => {
    const dns = recordingLookup({ "cdn.x.org": ["203.0.113.7", "127.0.0.1"] });
    px = await startProxy([`*.x.org:${canary.port}`], { lookup: dns.lookup });
    expect((await connectVia(px.socketPath, `cdn.x.org:${canary.port}`)).status).toBe(403);
    expect(canary.connections).toBe(0);
  });

  it("an exact name rule may reach a loopback address, and the proxy connects to the address it checked", async () => {
    const dns = recordingLookup({ "model.test": ["127.0.0.1"] });
    px = await startProxy([`model.test:${canary.port}`], { lookup: dns.lookup });
    const r = await connectVia(px.socketPath, `model.test:${canary.port}`);
    expect(r.status).toBe(200);
    expect(await httpOverSocket(tunnelOf(r), "model.test")).toMatch(/canary \//);
    // Once: the connection used the checked answer, it did not ask again.
    expect(dns.asked).toEqual(["model.test"]);
  });

  it("an unspecified address is refused even by an exact rule (Linux connects it to the host)", async () => {
    px = await startProxy([`0.0.0.0:${canary.port}`]);
    const r = await connectVia(px.socketPath, `0.0.0.0:${canary.port}`);
    expect(r.status).toBe(403);
    expect(canary.connections).toBe(0);
  });

  it("is judged on the CONNECT target, never on a Host header that differs", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const allowedTarget = await connectVia(px.socketPath, `127.0.0.1:${canary.port}`, {
      host: "evil.example.net:443",
    });
    expect(allowedTarget.status).toBe(200);
    allowedTarget.socket?.destroy();
    const allowedHost = await connectVia(px.socketPath, `127.0.0.1:${canary.port + 1}`, {
      host: `127.0.0.1:${canary.port}`,
    });
    expect(allowedHost.status).toBe(403);
    expect(px.proxy.denials().map((d) => d.port)).toEqual([canary.port + 1]);
  });

  it("a bad request line gets 400 and the socket closed; the proxy keeps serving", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    expect(await rawExchange(px.socketPath, "\x16\x03\x01\x02\x00garbage\r\n\r\n")).toMatch(
      /^HTTP\/1\.1 400/,
    );
    expect(
      await rawExchange(px.socketPath, "CONNECT nonsense HTTP/1.1\r\nHost: x\r\n\r\n"),
    ).toMatch(/^HTTP\/1\.1 400/);
    expect(
      await rawExchange(px.socketPath, "CONNECT [::1:443 HTTP/1.1\r\nHost: x\r\n\r\n"),
    ).toMatch(/^HTTP\/1\.1 400/);
    const huge = `GET http://127.0.0.1:${canary.port}/ HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`;
    expect(await rawExchange(px.socketPath, huge)).toMatch(/^HTTP\/1\.1 431/);
    const ok = await connectVia(px.socketPath, `127.0.0.1:${canary.port}`);
    expect(ok.status).toBe(200);
    ok.socket?.destroy();
  });

  it("keeps the first denials and counts the rest", async () => {
    px = await startProxy([]);
    const n = MAX_DENIALS + 5;
    for (let i = 0; i < n; i++) {
      await connectVia(px.socketPath, `blocked-${i}.example.net:443`);
    }
    expect(px.proxy.denials()).toHaveLength(MAX_DENIALS);
    expect(px.proxy.stats().denied).toBe(n);
  });

  it("a tunnel silent longer than the idle limit is closed", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`], { idleTimeoutMs: 200 });
    const r = await connectVia(px.socketPath, `127.0.0.1:${canary.port}`);
    const t0 = Date.now();
    await new Promise<void>((resolve) => tunnelOf(r).once("close", () => resolve()));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
  });

  it("close() ends open tunnels and removes the socket", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const socketPath = px.socketPath;
    const r = await connectVia(socketPath, `127.0.0.1:${canary.port}`);
    const ended = new Promise<void>((resolve) => r.socket?.once("close", () => resolve()));
    await px.proxy.close();
    await ended;
    expect(() => statSync(socketPath)).toThrow(/ENOENT/);
  });
});
