// `forge box prove`'s egress checks (R4.6), from INSIDE boxes behind the doors runs use: the
// harness endpoint answers through the agent's door, a host the phase does not allow is refused
// (and the refusal recorded), and neither a direct connection nor a name lookup gets out.
import { execInBox, tail } from "./box-exec.js";
import { type BoxContext, endpointReachable } from "./prove-harness.js";
import type { ProveCheck } from "./prove-types.js";
import type { Box, BoxDoor, NetworkSeam } from "./types.js";

export type ProvePhase = "setup" | "controls" | "agent";

/** The doors prove's boxes go through: the runner's own (src/runner/prove-doors.ts). */
export interface ProveDoors {
  /** What the proof records: "proxy", or "host" when the boxes share the host network. */
  mode: "proxy" | "host";
  /**
   * A door for a phase. An agent's door goes to the harness endpoint with the deployment's
   * credential added outside the box, or — `gatewayTo` — to this endpoint instead (the scripted
   * model of the enforcement check).
   */
  open(phase: ProvePhase, gatewayTo?: string): Promise<BoxDoor>;
  /** The provider variables an agent's box gets behind its door (no real credential). */
  agentEnv(gatewayTo?: string): Record<string, string>;
  /** More variables for a phase's box (setup: the host's package registries). */
  phaseEnv(phase: ProvePhase): Record<string, string>;
}

/** `host:port` of an endpoint URL (the port its scheme implies when absent). */
export function endpointAuthority(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
}

/**
 * An address a direct connection from the box is tried to: the endpoint's own when it is an IP
 * literal (the test and demo model servers on loopback), else a public one.
 */
export function directHostFor(url: string): string {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return /^[\d.]+$|:/.test(host) ? host : "1.1.1.1";
}

/** A box behind a fresh door of `phase`, `fn` run in it, the door closed after. */
export async function behindDoor<T>(
  doors: ProveDoors,
  phase: ProvePhase,
  make: (network: NetworkSeam) => Box,
  fn: (box: Box, door: BoxDoor) => Promise<T>,
  gatewayTo?: string,
): Promise<{ value: T; refused: Array<Record<string, unknown>> }> {
  const door = await doors.open(phase, gatewayTo);
  let value: T;
  try {
    value = await fn(door.wrapBox(make(door.network)), door);
  } catch (error) {
    await door.close();
    throw error;
  }
  return { value, refused: (await door.close()).map((e) => e.data) };
}

// Run with node in the box: the endpoint through the door, a refused CONNECT, a direct
// connection and a lookup. Prints one JSON line.
const PROBE = `
const http = require("http"), net = require("net"), dns = require("dns");
const [endpoint, directHost] = process.argv.slice(1);
const proxy = new URL(process.env.HTTPS_PROXY || "http://127.0.0.1:1");
const out = {};
const step = (p) => Promise.race([p, new Promise((r) => setTimeout(() => r({ error: "timeout" }), 8000))]);
const viaGateway = () => new Promise((r) => {
  const base = new URL(process.env.ANTHROPIC_BASE_URL);
  http.get({ host: base.hostname, port: base.port, path: "/v1/models" }, (res) => {
    let b = ""; res.on("data", (d) => (b += d)); res.on("end", () => r({ status: res.statusCode, door: b.startsWith("forge egress:") ? b.trim() : "" }));
  }).on("error", (e) => r({ error: e.code || e.message }));
});
const connectVia = (target) => new Promise((r) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: target });
  req.on("connect", (res, s) => { s.destroy(); r({ status: res.statusCode }); });
  req.on("error", (e) => r({ error: e.code || e.message }));
  req.end();
});
const direct = () => new Promise((r) => {
  const t0 = Date.now();
  const s = net.connect({ host: directHost, port: 443 });
  s.on("connect", () => { s.destroy(); r({ connected: true }); });
  s.on("error", (e) => r({ error: e.code, ms: Date.now() - t0 }));
});
const lookup = () => new Promise((r) => {
  const t0 = Date.now();
  dns.lookup("example.org", (e, a) => r(e ? { error: e.code, ms: Date.now() - t0 } : { address: a }));
});
(async () => {
  const base = process.env.ANTHROPIC_BASE_URL || "";
  out.endpoint = /^http:\\/\\/127\\.0\\.0\\.1:/.test(base) ? await step(viaGateway()) : await step(connectVia(endpoint));
  out.refused = await step(connectVia("forge-prove-not-allowed.example.org:443"));
  out.direct = await step(direct());
  out.lookup = await step(lookup());
  console.log(JSON.stringify(out));
})();
`;

interface ProbeResult {
  endpoint?: { status?: number; door?: string; error?: string };
  refused?: { status?: number; error?: string };
  direct?: { connected?: boolean; error?: string };
  lookup?: { address?: string; error?: string; ms?: number };
}

/**
 * The agent's door, proved: four checks from one probe in a box behind it. `endpoint` is the
 * harness endpoint (host:port) for a door without the gateway; `directHost` an address to try
 * without the door (the endpoint's, when it is a literal, else a public one).
 */
export async function egressChecks(
  ctx: BoxContext,
  doors: ProveDoors,
  make: (network: NetworkSeam) => Box,
  o: { node: string; endpoint: string; directHost: string },
): Promise<ProveCheck[]> {
  const { value: r, refused } = await behindDoor(doors, "agent", make, (box) =>
    execInBox(
      box,
      {
        command: o.node,
        args: ["-e", PROBE, o.endpoint, o.directHost],
        cwd: ctx.workspace,
        env: { ...ctx.env, ...doors.agentEnv() },
      },
      { timeoutMs: 60_000 },
    ),
  );
  let p: ProbeResult = {};
  try {
    p = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as ProbeResult;
  } catch {
    const why = tail(r.stderr || r.stdout || r.spawnError || `exit ${r.code}`, 200);
    return [fail("egress: probe", `the probe did not run in the box: ${why}`, "see the message")];
  }
  const reached = p.endpoint?.status !== undefined && !p.endpoint.door && p.endpoint.status !== 502;
  const refusedSeen = refused.some((d) => d.host === "forge-prove-not-allowed.example.org");
  return [
    reached
      ? pass("egress: harness endpoint through the proxy", `answered HTTP ${p.endpoint?.status}`)
      : fail(
          "egress: harness endpoint through the proxy",
          `not reached through the box's door: ${p.endpoint?.door || p.endpoint?.error || `HTTP ${p.endpoint?.status}`}`,
          "let this host reach the model endpoint (ANTHROPIC_BASE_URL), or check the credential",
        ),
    p.refused?.status === 403 && refusedSeen
      ? pass("egress: a host not allowed is refused", "CONNECT refused (403) and recorded")
      : fail(
          "egress: a host not allowed is refused",
          `CONNECT to a host no phase allows: ${JSON.stringify(p.refused)}${refusedSeen ? "" : ", no refusal recorded"}`,
          "the egress proxy let a host through that is not on the list: do not run agents here",
        ),
    p.direct?.error && !p.direct.connected
      ? pass("egress: no direct connection", `a direct connection fails (${p.direct.error})`)
      : fail(
          "egress: no direct connection",
          `a connection without the proxy got out: ${JSON.stringify(p.direct)}`,
          "the box shares a network: check that bwrap can create a network namespace",
        ),
    p.lookup?.error && (p.lookup.ms ?? 0) < 5000
      ? pass("egress: no name lookup in the box", `fails at once (${p.lookup.error})`)
      : fail(
          "egress: no name lookup in the box",
          `a lookup inside the box: ${JSON.stringify(p.lookup)}`,
          "the box reaches a resolver: check that bwrap can create a network namespace",
        ),
  ];
}

function pass(name: string, detail: string): ProveCheck {
  return { name, ok: true, detail, fix: "" };
}

function fail(name: string, detail: string, fix: string): ProveCheck {
  return { name, ok: false, detail, fix };
}

/** What the proof says when its boxes had no egress control, and why. */
export function uncontrolled(
  opts: { box: string; doors?: Pick<ProveDoors, "mode"> },
  seam: NetworkSeam,
): string {
  const what = seam.mode === "none" ? "no network at all" : "the host network";
  if (opts.box !== "bwrap")
    return `not controlled: ${opts.box} boxes have ${what} (no egress proxy)`;
  if (opts.doors?.mode === "host") {
    return `not controlled: the deployment set FORGE_EGRESS=host, so every box has ${what}`;
  }
  return `not controlled: this proof's boxes had ${what} (--network); runs go through the egress proxy`;
}

type Step = (
  name: string,
  needs: string[],
  fn: () => Promise<ProveCheck> | ProveCheck,
) => Promise<void>;

/**
 * The network checks of a proof: behind doors, the four egress checks; without, a plain line that
 * the boxes had no egress control and whether the endpoint answers from the box.
 */
export async function proveNetwork(o: {
  ctx: BoxContext;
  node: string;
  endpoint: string;
  make: (network: NetworkSeam) => Box;
  doors: ProveDoors | undefined;
  uncontrolled: () => string;
  seamMode: string;
  step: Step;
}): Promise<void> {
  const needs = ["harness credentials"];
  if (!o.doors) {
    await o.step("egress", [], () => ({
      name: "egress",
      ok: true,
      detail: o.uncontrolled(),
      fix: "",
    }));
    await o.step("harness endpoint", needs, () =>
      endpointReachable(o.ctx, o.node, o.endpoint, o.seamMode),
    );
    return;
  }
  const checks = await egressChecks(o.ctx, o.doors, o.make, {
    node: o.node,
    endpoint: endpointAuthority(o.endpoint),
    directHost: directHostFor(o.endpoint),
  }).catch((error: Error) => [
    { name: "egress: probe", ok: false, detail: error.message, fix: "see the message" },
  ]);
  for (const c of checks) await o.step(c.name, needs, () => c);
}

/** The enforcement check's CLI behind an agent's door whose gateway leads to its scripted model. */
export function enforcementThrough(doors: ProveDoors, make: (network: NetworkSeam) => Box) {
  return {
    open: (url: string) => doors.open("agent", url),
    make,
    env: (url: string) => doors.agentEnv(url),
  };
}
