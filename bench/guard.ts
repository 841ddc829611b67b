// Whole-process latency of `forge guard` (it runs on every tool call of every agent) beside
// bare `node -e 0` on the same machine. Runs are interleaved (node, read, bashSimple,
// bashParsed, node, …) so background load affects every series alike.
//   node --import tsx bench/guard.ts        (after `npm run build`)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FORGE = fileURLToPath(new URL("../bin/forge.js", import.meta.url));

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

interface Series {
  readonly argv: readonly string[];
  readonly input: string;
}

const SERIES: Readonly<Record<string, Series>> = {
  node: { argv: ["-e", "0"], input: "" },
  read: {
    argv: [FORGE, "guard", "--role", "builder"],
    input: payload("Read", { file_path: "src/cli/main.ts" }),
  },
  bashSimple: {
    argv: [FORGE, "guard", "--role", "builder"],
    input: payload("Bash", { command: "git status" }),
  },
  bashParsed: {
    argv: [FORGE, "guard", "--role", "builder"],
    input: payload("Bash", { command: 'cat $(ls) | grep x && echo "a b"' }),
  },
};

function once(series: Series): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, series.argv, { input: series.input, encoding: "utf8" });
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

export interface GuardBench {
  runs: number;
  node: { p50: number; p95: number };
  read: { p50: number; p95: number; ratio: number };
  bashSimple: { p50: number; p95: number; ratio: number };
  bashParsed: { p50: number; p95: number; ratio: number };
}

export async function benchGuard(
  runs = Number(process.env.FORGE_BENCH_RUNS) || 50,
): Promise<GuardBench> {
  if (!existsSync(fileURLToPath(new URL("../dist/guard.js", import.meta.url)))) {
    throw new Error("dist/guard.js is missing: run `npm run build` first");
  }
  const names = Object.keys(SERIES);
  for (const name of names) once(SERIES[name] as Series); // warm the file cache
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i++) {
    for (const name of names) times[name]?.push(once(SERIES[name] as Series));
  }
  const stat = (name: string) => {
    const sorted = [...(times[name] ?? [])].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
  };
  const node = stat("node");
  const withRatio = (name: string) => {
    const s = stat(name);
    return { ...s, ratio: Math.round((s.p50 / node.p50) * 100) / 100 };
  };
  return {
    runs,
    node,
    read: withRatio("read"),
    bashSimple: withRatio("bashSimple"),
    bashParsed: withRatio("bashParsed"),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchGuard(), null, 2));
}
