// Box start overhead: `bwrap <the box's full argv> /bin/true` against a bare `/bin/true`, p50
// (and p90) over RUNS runs each, with the production argv (createBox("bwrap")) for both the
// network-less box and the host-network one. Goal: bwrap start under 20 ms.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createBox } from "../src/boxes/create-box.js";

const RUNS = 40;
const WARMUP = 3;

function time(command: string, args: string[], env: Record<string, string>): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, stdio: "ignore" });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${command} exited ${r.status}: ${r.error?.message ?? ""}`);
  return ms;
}

function stats(samples: number[]): { p50: number; p90: number; min: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    min: round(s[0] as number),
    max: round(s.at(-1) as number),
  };
}

function measure(command: string, args: string[], env: Record<string, string>): number[] {
  for (let i = 0; i < WARMUP; i++) time(command, args, env);
  return Array.from({ length: RUNS }, () => time(command, args, env));
}

export async function benchBox(): Promise<object> {
  const base = mkdtempSync(join(tmpdir(), "forge-bench-box-"));
  try {
    const workspace = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(workspace);
    mkdirSync(home);
    const env = { PATH: "/usr/bin:/bin", HOME: home };
    const cmd = { command: "/bin/true", args: [], cwd: workspace, env };
    const bare = stats(measure("/bin/true", [], env));
    const none = createBox("bwrap", { workspace, home, allowNetwork: false }).wrap(cmd);
    const host = createBox("bwrap", { workspace, home, allowNetwork: true }).wrap(cmd);
    const boxNone = stats(measure(none.command, none.args, none.env));
    const boxHost = stats(measure(host.command, host.args, host.env));
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      bench: "box start",
      runs: RUNS,
      unit: "ms",
      bare_true: bare,
      bwrap_no_network: boxNone,
      bwrap_host_network: boxHost,
      overhead_p50_no_network: round(boxNone.p50 - bare.p50),
      overhead_p50_host_network: round(boxHost.p50 - bare.p50),
      overhead_min_no_network: round(boxNone.min - bare.min),
      overhead_min_host_network: round(boxHost.min - bare.min),
      // 2 cores shared with other test runs: the load says how much to trust a p50.
      load_average_1m: round(loadavg()[0] ?? 0),
      goal_ms: 20,
      meets_goal: boxNone.p50 - bare.p50 < 20 && boxHost.p50 - bare.p50 < 20,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await benchBox(), null, 2)}\n`);
}
