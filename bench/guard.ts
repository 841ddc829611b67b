// Whole-process latency of the guard hook exactly as the effective settings run it
// (`node bin/forge-guard.cjs --role <role>`; it runs on every tool call of every agent) beside
// bare `node -e 0` on the same machine, with the role gate on as in a box. Two ways it runs:
// - server: as in a bwrap box (the default) — the hook asks the in-box guard server, which
//   keeps the guard and tree-sitter loaded (src/guard/guard-server.ts);
// - in-process: the hook decides alone (worktree/container boxes, or the server is gone).
// Runs are interleaved (node, then every series, again …) so background load affects all alike.
//   node --import tsx bench/guard.ts        (after `npm run build`)
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openGuardSocket } from "../src/runner/guard-socket.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GUARD = join(ROOT, "bin", "forge-guard.cjs");
const GOAL_RATIO = 1.3;

function payload(tool: string, toolInput: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: "bench",
    transcript_path: "/dev/null",
    cwd: ROOT,
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: toolInput,
  });
}

const PAYLOADS = {
  read: payload("Read", { file_path: "src/cli/main.ts" }),
  bashSimple: payload("Bash", { command: "git status" }),
  bashParsed: payload("Bash", { command: 'cat $(ls) | grep x && echo "a b"' }),
} as const;
type PayloadName = keyof typeof PAYLOADS;

interface Series {
  readonly argv: readonly string[];
  readonly input: string;
  readonly env: Readonly<Record<string, string>>;
}

function once(series: Series): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, series.argv, {
    input: series.input,
    encoding: "utf8",
    env: { ...process.env, ...series.env },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // every payload here is allowed: anything on stdout or a non-zero exit is a broken guard
  if (r.status !== 0 || r.stdout !== "") {
    throw new Error(`unexpected result (exit ${r.status}): ${r.stdout}${r.stderr}`);
  }
  return ms;
}

function percentile(sorted: readonly number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[i] ?? Number.NaN) * 10) / 10;
}

interface Stat {
  p50: number;
  p95: number;
  ratio: number;
}

export interface GuardBench {
  runs: number;
  node: { p50: number; p95: number };
  server: Record<PayloadName, Stat>;
  in_process: Record<PayloadName, Stat> & { bashParsedWasm: Stat };
  role_gate: string;
  goal_ratio: number;
  /** The goal, for the hook as it runs in the default (bwrap) box: through the server. */
  meets_goal: boolean;
  in_process_meets_goal: boolean;
}

export async function benchGuard(
  runs = Number(process.env.FORGE_BENCH_RUNS) || 50,
): Promise<GuardBench> {
  for (const f of ["guard.cjs", "guard-client.cjs", "guard-server.cjs"]) {
    if (!existsSync(join(ROOT, "dist", f))) {
      throw new Error(`dist/${f} is missing: run \`npm run build\` first`);
    }
  }
  const scratch = mkdtempSync(join(tmpdir(), "forge-bench-guard-"));
  writeFileSync(
    join(scratch, "profile.json"),
    readFileSync(join(ROOT, "profiles", "builder.json")),
  );
  // What the runner gives every hook in a box: the step's profile and ledger (R7.3 role gate).
  const gate = {
    FORGE_ROLE_PROFILE: join(scratch, "profile.json"),
    FORGE_ROLE_LEDGER: join(scratch, "ledger.jsonl"),
    FORGE_RUN_ID: "bench",
  };
  const sock = await openGuardSocket();
  if (!sock) throw new Error("no guard socket on this platform");
  let server: ChildProcess | undefined;
  try {
    server = spawn(process.execPath, [join(ROOT, "dist", "guard-server.cjs"), "3"], {
      stdio: ["ignore", "ignore", "ignore", sock.fd],
      env: { ...process.env, ...gate },
    });
    sock.close();
    return measure(runs, gate, sock.path);
  } finally {
    server?.kill();
    sock.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function measure(runs: number, gate: Record<string, string>, socket: string): GuardBench {
  const series: Record<string, Series> = { node: { argv: ["-e", "0"], input: "", env: {} } };
  for (const [name, input] of Object.entries(PAYLOADS)) {
    const argv = [GUARD, "--role", "builder"];
    series[`server.${name}`] = { argv, input, env: { ...gate, FORGE_GUARD_SOCKET: socket } };
    series[`in_process.${name}`] = { argv, input, env: gate };
  }
  // The parsed command through the wasm build (the fallback when the native addon cannot load).
  series["in_process.bashParsedWasm"] = {
    argv: [GUARD, "--role", "builder"],
    input: PAYLOADS.bashParsed,
    env: { ...gate, FORGE_GUARD_PARSER: "wasm" },
  };
  const names = Object.keys(series);
  for (const name of names) once(series[name] as Series); // warm the file cache and the server
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i++) {
    for (const name of names) times[name]?.push(once(series[name] as Series));
  }
  const sorted = (name: string) => [...(times[name] ?? [])].sort((a, b) => a - b);
  const node = { p50: percentile(sorted("node"), 50), p95: percentile(sorted("node"), 95) };
  const stat = (name: string): Stat => {
    const s = sorted(name);
    const p50 = percentile(s, 50);
    return { p50, p95: percentile(s, 95), ratio: Math.round((p50 / node.p50) * 100) / 100 };
  };
  const group = (prefix: string) =>
    Object.fromEntries(Object.keys(PAYLOADS).map((n) => [n, stat(`${prefix}.${n}`)])) as Record<
      PayloadName,
      Stat
    >;
  const server = group("server");
  const inProcess = { ...group("in_process"), bashParsedWasm: stat("in_process.bashParsedWasm") };
  const meets = (g: Record<PayloadName, Stat>) =>
    Object.values(g).every((s) => s.ratio <= GOAL_RATIO);
  return {
    runs,
    node,
    server,
    in_process: inProcess,
    role_gate: "on (FORGE_ROLE_PROFILE = profiles/builder.json), as in a box",
    goal_ratio: GOAL_RATIO,
    meets_goal: meets(server),
    in_process_meets_goal: meets(group("in_process")),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchGuard(), null, 2));
}
