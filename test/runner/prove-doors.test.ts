// `forge box prove` behind the doors runs use (R4.6), on a real repository in real bwrap boxes
// with the real claude CLI: the egress checks pass against a model endpoint on the host's
// loopback, the enforcement check's CLI reaches its scripted model through the proxy, a setup
// that needs a host its phase does not allow fails naming it, and the proof records the network.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveBoxUser } from "../../src/boxes/box-user.js";
import { type ProveOptions, prove } from "../../src/boxes/prove.js";
import { claudeProvider, resolveClaudeBinary } from "../../src/providers/claude.js";
import { effectiveSettings } from "../../src/roles/settings.js";
import { proofNetwork, proveDoors } from "../../src/runner/prove-doors.js";
import { ensureBuilt } from "../harness/build.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLAUDE = resolveClaudeBinary(ROOT);
const KEY = fake.anthropicKey();

let endpoint: Server;
let endpointUrl: string;
const seen: IncomingMessage["headers"][] = [];
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  ensureBuilt();
  endpoint = createServer((req, res) => {
    seen.push(req.headers);
    res.end("ok");
  });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function proveWithDoors(over: Partial<ProveOptions> = {}) {
  const t = tempDir("forge-prove-doors-");
  cleanups.push(t.cleanup);
  makeRepo(t.dir, { "README.md": "hello\n", "check.sh": "test -f README.md\n" });
  const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: endpointUrl };
  const doors = await proveDoors({
    hostEnv: env,
    boxKind: "bwrap",
    boxUser: resolveBoxUser(env),
    installRoot: ROOT,
    config: null,
    loginFile: false,
  });
  return prove({
    repo: t.dir,
    box: "bwrap",
    setup: [],
    validate: { test: { run: "sh check.sh", advisory: false } },
    settingsFor: (role) => effectiveSettings(role),
    claudeBinary: CLAUDE,
    agent: claudeProvider({ binary: CLAUDE }),
    env,
    installRoot: ROOT,
    loginFile: "/nonexistent/login.json",
    doors,
    ...over,
  });
}

describe("box prove behind the egress doors", () => {
  it("proves the doors: the endpoint through the gateway, a refusal, no direct connection, no lookup; the enforcement CLI through the proxy", async () => {
    seen.length = 0;
    const report = await proveWithDoors();
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(
      report.checks.filter((c) => !c.ok),
      JSON.stringify(report.checks, null, 1),
    ).toEqual([]);
    expect(byName["box starts"]?.detail).toMatch(/the egress proxy only/);
    expect(byName["egress: harness endpoint through the proxy"]?.detail).toMatch(/HTTP 200/);
    expect(byName["egress: a host not allowed is refused"]?.detail).toMatch(/403/);
    expect(byName["egress: no direct connection"]?.detail).toMatch(/ECONNREFUSED/);
    expect(byName["egress: no name lookup in the box"]?.ok).toBe(true);
    for (const role of ["architect", "builder", "reviewer", "security"]) {
      expect(byName[`enforcement: ${role}`]?.detail).toMatch(/through the egress proxy/);
    }
    // The endpoint check went through the gateway: the endpoint saw the real key.
    expect(seen.some((h) => h["x-api-key"] === KEY)).toBe(true);
    expect(JSON.stringify(report)).not.toContain(KEY);
    expect(report.facts.network).toBe("proxy");
    expect(proofNetwork({}, "bwrap")).toBe("proxy");
    expect(proofNetwork({ FORGE_EGRESS: "host" }, "bwrap")).toBe("host");
    expect(proofNetwork({}, "worktree")).toBe("host");
  }, 300_000);

  it("a validate control that needs a host its phase does not allow fails, and the proof says so", async () => {
    const probe =
      "node -e \"require('http').get({host:'127.0.0.1',port:28080,path:'http://registry.npmjs.org/'},r=>{console.log(r.statusCode);process.exit(r.statusCode===200?0:1)}).on('error',e=>{console.log(e.code);process.exit(1)})\"";
    const report = await proveWithDoors({
      validate: { net: { run: probe, advisory: false } },
      roles: [],
    });
    const check = report.checks.find((c) => c.name === "validate: net");
    expect(check?.ok, JSON.stringify(check)).toBe(false);
    expect(check?.detail).toMatch(/403/);
    expect(report.ok).toBe(false);
  }, 120_000);
});
