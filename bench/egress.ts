// Egress (R4.6): what the door costs. (1) Per request, on loopback: a direct request to a target
// against the same request through the in-box relay and the proxy — as a CONNECT tunnel (what
// HTTPS clients do) and through the model gateway (what the agent does) — p50 and p99 of each,
// and what the door adds. (2) The demo chain with an instant model, with the egress proxy and
// with the host network (FORGE_EGRESS=host), runs interleaved so the machine's drift hits both
// alike. Goal: the door adds at most 5 % to the chain's overhead. Every timed request must have
// answered 200 and every chain must have ended.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEgressEntry } from "../src/egress/allowlist.js";
import { startEgressProxy } from "../src/egress/proxy.js";
import { startRelay } from "../src/egress/relay.js";
import { benchWith, instantScript } from "./chain.js";

const REQUESTS = 400;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return (
    Math.round((s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0) * 1000) / 1000
  );
}

function summary(xs: number[]) {
  return { p50_ms: percentile(xs, 50), p99_ms: percentile(xs, 99) };
}

/** One request on a fresh connection; resolves with its duration, throws unless 200. */
function timed(send: () => Promise<number>): Promise<number> {
  const t0 = performance.now();
  return send().then((status) => {
    if (status !== 200) throw new Error(`bench request answered ${status}`);
    return performance.now() - t0;
  });
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

function tunnelGet(relayPort: number, targetPort: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: relayPort,
      method: "CONNECT",
      path: `127.0.0.1:${targetPort}`,
      agent: false,
    });
    req.on("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        resolve(res.statusCode ?? 0);
        return;
      }
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d;
      });
      socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0)));
      socket.on("error", reject);
      socket.end("GET /t HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    });
    req.on("error", reject);
    req.end();
  });
}

async function perRequest(): Promise<object> {
  const target: Server = createServer((_req, res) => res.end("ok"));
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  const port = (target.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-egress-"));
  const proxy = await startEgressProxy({
    socketPath: join(dir, "egress.sock"),
    rules: [parseEgressEntry(`127.0.0.1:${port}`)],
    gateway: { upstream: `http://127.0.0.1:${port}`, headers: { "x-api-key": "bench-not-a-key" } },
  });
  const relay = await startRelay({ port: 0, socketPath: proxy.socketPath });
  const relayPort = (relay.address() as AddressInfo).port;
  try {
    const direct: number[] = [];
    const tunnel: number[] = [];
    const gateway: number[] = [];
    for (let i = 0; i < 20; i++) {
      await get(port, "/warm");
      await tunnelGet(relayPort, port);
      await get(relayPort, "/v1/messages");
    }
    for (let i = 0; i < REQUESTS; i++) {
      direct.push(await timed(() => get(port, "/d")));
      tunnel.push(await timed(() => tunnelGet(relayPort, port)));
      gateway.push(await timed(() => get(relayPort, "/v1/messages")));
    }
    const d = summary(direct);
    const t = summary(tunnel);
    const g = summary(gateway);
    const added = (x: { p50_ms: number; p99_ms: number }) => ({
      p50_ms: Math.round((x.p50_ms - d.p50_ms) * 1000) / 1000,
      p99_ms: Math.round((x.p99_ms - d.p99_ms) * 1000) / 1000,
    });
    return {
      description:
        "one request on a fresh connection, on loopback: direct, and through the relay and the proxy",
      requests_each: REQUESTS,
      direct: d,
      connect_tunnel: t,
      model_gateway: g,
      added_by_the_door: { connect_tunnel: added(t), model_gateway: added(g) },
      proxy_stats: proxy.stats(),
    };
  } finally {
    relay.close();
    await proxy.close();
    await new Promise<void>((r) => target.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function chainWithAndWithout(runs: number): Promise<object> {
  const proxy: number[] = [];
  const host: number[] = [];
  for (let i = 0; i < runs; i++) {
    proxy.push((await benchWith(instantScript(), 1, false)).chain_ms_median);
    host.push(
      (await benchWith(instantScript(), 1, false, undefined, { FORGE_EGRESS: "host" }))
        .chain_ms_median,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const added = median(proxy) - median(host);
  const percent = Math.round((added / Math.max(1, median(host))) * 1000) / 10;
  return {
    description: "the demo chain with an instant model, runs interleaved",
    runs_each: runs,
    egress_proxy_ms_median: median(proxy),
    host_network_ms_median: median(host),
    egress_proxy_ms_all: proxy,
    host_network_ms_all: host,
    added_ms: added,
    added_percent: percent,
    goal_percent: 5,
    meets_goal: percent <= 5,
  };
}

export async function benchEgress(): Promise<object> {
  return { per_request: await perRequest(), chain: await chainWithAndWithout(7) };
}
