// Runs INSIDE a bwrap box (relay-box.test.ts): tries each way out and prints one JSON line.
// Node's http client ignores the proxy variables, so this does what a tool that honours them
// does: absolute-form requests to HTTP_PROXY, CONNECT to HTTPS_PROXY, the model at
// ANTHROPIC_BASE_URL with the placeholder key.
const http = require("node:http");
const net = require("node:net");
const dns = require("node:dns");
const fs = require("node:fs");

const canary = Number(process.argv[2]);
const proxy = new URL(process.env.HTTPS_PROXY);
const out = {};

function get(options, body) {
  return new Promise((resolve) => {
    const req = http.request(options, (res) => {
      let text = "";
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode, body: text }));
    });
    req.on("connect", (res, socket, head) => {
      if (res.statusCode !== 200) return resolve({ status: res.statusCode, body: String(head) });
      let text = "";
      socket.on("data", (d) => {
        text += d;
      });
      socket.on("end", () => resolve({ status: 200, body: text }));
      socket.end(`GET /tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    req.on("error", (e) => resolve({ error: e.code || e.message }));
    req.end(body);
  });
}

function tcp(host, port) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.setTimeout(3000, () => s.destroy(new Error("TIMEOUT")));
    s.on("connect", () => {
      s.destroy();
      resolve({ connected: true });
    });
    s.on("error", (e) => resolve({ error: e.code || e.message, ms: Date.now() - t0 }));
  });
}

function lookup(name) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    dns.lookup(name, (e, address) => resolve({ error: e?.code, address, ms: Date.now() - t0 }));
  });
}

(async () => {
  const at = { host: proxy.hostname, port: Number(proxy.port) };
  out.plain = await get({
    ...at,
    path: `http://127.0.0.1:${canary}/plain`,
    headers: { host: `127.0.0.1:${canary}` },
  });
  out.tunnel = await get({ ...at, method: "CONNECT", path: `127.0.0.1:${canary}` });
  out.deniedTunnel = await get({ ...at, method: "CONNECT", path: `127.0.0.1:${canary + 1}` });
  out.deniedName = await get({ ...at, method: "CONNECT", path: "exfil.example.net:443" });
  const base = new URL(process.env.ANTHROPIC_BASE_URL);
  out.model = await get(
    {
      host: base.hostname,
      port: Number(base.port),
      method: "POST",
      path: "/v1/messages",
      headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "content-type": "application/json" },
    },
    "{}",
  );
  out.directCanary = await tcp("127.0.0.1", canary);
  out.directPublic = await tcp("203.0.113.80", 443);
  out.lookup = await lookup("registry.npmjs.org");
  out.localhost = await lookup("localhost");
  out.resolvConf = fs.existsSync("/etc/resolv.conf")
    ? fs.readFileSync("/etc/resolv.conf", "utf8")
    : null;
  // The relays listening in the box: node's, or perl's (not its per-connection children,
  // whose parent is the listening relay; a keep-alive connection may still have one).
  const isRelay = (p) => {
    try {
      const argv = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
      return /egress-relay\.(cjs|pl)$/.test(argv[1] ?? "");
    } catch {
      return false;
    }
  };
  const parentOf = (p) => {
    try {
      return fs
        .readFileSync(`/proc/${p}/stat`, "utf8")
        .replace(/^.*\) /, "")
        .split(" ")[1];
    } catch {
      return "";
    }
  };
  out.relays = fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p) && isRelay(p) && !isRelay(parentOf(p))).length;
  process.stdout.write(`${JSON.stringify(out)}\n`);
})();
