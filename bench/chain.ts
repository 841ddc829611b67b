// Chain overhead: a full 4-role change chain on the demo repository with an instant scripted
// model (the real claude binary, real bwrap boxes, real git and SQLite) — everything but the
// model's thinking time. Median of >= 5 runs. Goal: under 3 s for a 4-role chain. The same
// chain with its journal on PostgreSQL beside it (goal: at most 10 % more).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openLocalStack } from "../src/cli/local/stack.js";
import { createDemoRepo } from "../src/demo/demo-repo.js";
import { demoScript } from "../src/demo/demo-script.js";
import { installRoot } from "../src/install-root.js";
import { loadProfiles } from "../src/policy/index.js";
import { loadRepoPolicy } from "../src/policy/repo-policy.js";
import { git } from "../src/runner/git.js";
import { gitRunnerIn } from "../src/runner/git-runner.js";
import { buildSnapshotContent } from "../src/runner/snapshot-content.js";
import { type Script, startModelServer } from "../src/scripted-model/server.js";
import { startPostgres } from "../test/harness/postgres.js";

/** Every role answers at once with its structured output: the chain's own overhead. */
export function instantScript(): Script {
  const demo = demoScript();
  return {
    ...demo,
    routes: (demo.routes ?? []).map((r) => ({
      ...r,
      turns: r.turns.filter((t) => "structured" in t),
    })),
  };
}

/**
 * How fast this machine is right now: the median start of a bare `node -e 0`. The chain is
 * CPU-bound (four Claude Code processes take ≈ 0.8-1 s of CPU each), and this host's speed
 * varies by about 2x over a day, so the chain figure is read beside it.
 */
function bareNodeStartMs(runs = 7): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ["-e", "0"]);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(runs / 2)] ?? 0);
}

/** Busy CPU time of the whole machine so far, in ms (Linux /proc/stat; null elsewhere). */
function machineBusyCpuMs(): number | null {
  if (!existsSync("/proc/stat")) return null;
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // user nice system (idle iowait) irq softirq steal, in clock ticks of 10 ms.
  const busy = [0, 1, 2, 5, 6, 7].reduce((sum, i) => sum + (fields[i] ?? 0), 0);
  return busy * 10;
}

export async function benchChain(runs = 5): Promise<object> {
  const sqlite = await benchWith(instantScript(), runs, false);
  // The same chain with its journal on PostgreSQL (DATABASE_URL): a durable server on loopback.
  const pg = await startPostgres({ durable: true });
  let postgresql: Awaited<ReturnType<typeof benchWith>>;
  try {
    const url = await pg.createDatabase("forge_bench_chain");
    postgresql = await benchWith(instantScript(), runs, false, undefined, { DATABASE_URL: url });
  } finally {
    await pg.stop();
  }
  return {
    reference_bare_node_start_ms: bareNodeStartMs(),
    instant_model: sqlite,
    instant_model_postgresql: postgresql,
    postgresql_vs_sqlite_chain:
      Math.round((postgresql.chain_ms_median / sqlite.chain_ms_median) * 1000) / 1000,
    demo_script: await benchWith(demoScript(), runs, true),
    node_setup: await benchWith(instantScript(), 3, false, "node-lock"),
  };
}

/** A sample project of fixtures/projects as a git repository on `main`. */
async function projectRepo(root: string, name: string, repo: string): Promise<void> {
  await cp(join(root, "fixtures", "projects", name), repo, { recursive: true });
  for (const args of [
    ["init", "--quiet", "--initial-branch=main"],
    ["add", "-A"],
    ["commit", "--quiet", "-m", name],
  ]) {
    await git(args, { cwd: repo });
  }
}

export async function benchWith(
  script: Script,
  runs: number,
  builderEdits: boolean,
  project?: string,
  extraEnv: Record<string, string> = {},
): Promise<{ chain_ms_median: number } & Record<string, unknown>> {
  const root = installRoot();
  const server = await startModelServer(script);
  const times: number[] = [];
  const cpu: number[] = [];
  const perStep: Record<string, number[]> = {};
  const phases: Record<string, Record<string, number[]>> = {};
  const warm: Record<string, boolean[]> = {};
  const setup: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const dir = mkdtempSync(join(tmpdir(), "forge-bench-chain-"));
      try {
        const repo = join(dir, "repo");
        if (project) await projectRepo(root, project, repo);
        else await createDemoRepo(root, repo);
        mkdirSync(join(dir, "home"));
        const policy = await loadRepoPolicy(repo, {
          git: gitRunnerIn(repo),
          profiles: loadProfiles(join(root, "profiles")),
        });
        const stack = openLocalStack({
          root,
          forgeHome: join(dir, "home"),
          env: {
            PATH: process.env.PATH,
            ANTHROPIC_BASE_URL: server.url,
            ANTHROPIC_API_KEY: "forge-bench-not-a-real-key",
            ...extraEnv,
          },
          box: "bwrap",
          ownWork: false,
          provider: "claude",
          policy,
        });
        const cpu0 = machineBusyCpuMs();
        const t0 = performance.now();
        const run = await stack.engine.startRun({
          chain: "change",
          task: { title: "bench", body: "greet with an exclamation mark" },
          repo: { remote: repo, baseRef: "main" },
          snapshotContent: await buildSnapshotContent({
            installRoot: root,
            remote: repo,
            ref: "main",
            provider: { name: "claude", version: "bench" },
            config: policy.config,
          }),
          requestBudget: 1,
        });
        const final = await stack.engine.drive(run.id);
        times.push(performance.now() - t0);
        const cpu1 = machineBusyCpuMs();
        if (cpu0 !== null && cpu1 !== null) cpu.push(cpu1 - cpu0);
        // The instant script skips the builder's edit, so its reviewer sees an empty diff; the
        // chain still runs every step. The demo script must pass end to end.
        if ((builderEdits || project) && final.state !== "passed") {
          throw new Error(`bench chain did not pass: ${final.state}`);
        }
        for (const s of await stack.store.getSteps(run.id)) {
          if (s.startedAt && s.finishedAt) {
            perStep[s.role] = [
              ...(perStep[s.role] ?? []),
              Date.parse(s.finishedAt) - Date.parse(s.startedAt),
            ];
          }
        }
        for (const e of await stack.store.events(run.id)) {
          const d = e.data as {
            role?: string;
            phases?: Record<string, number>;
            warmStart?: boolean;
          };
          if (e.type === "run.setup.finished" && typeof e.data.seconds === "number") {
            setup.push(e.data.seconds * 1000);
          }
          if (!d.role) continue;
          if (e.type === "runner.step.timings" && d.phases) {
            const byPhase = phases[d.role] ?? {};
            phases[d.role] = byPhase;
            for (const [k, v] of Object.entries(d.phases)) byPhase[k] = [...(byPhase[k] ?? []), v];
          }
          if (e.type === "runner.step.prepared") {
            warm[d.role] = [...(warm[d.role] ?? []), d.warmStart === true];
          }
        }
        await stack.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await server.close();
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.floor(s.length / 2)] ?? 0);
  };
  return {
    description: project
      ? `the ${project} sample project with an instant model: its setup phase (npm ci from the registry) before the chain`
      : builderEdits
        ? "the demo conversation: reads, a guard refusal, two writes, make test, structured output"
        : "one StructuredOutput call per role (no tool calls): the chain's own overhead",
    runs,
    ...(setup.length > 0 ? { setup_phase_ms_median: median(setup) } : {}),
    chain_ms_median: median(times),
    chain_ms_all: times.map(Math.round),
    // The whole machine's busy CPU during a chain (all processes, both cores): about twice the
    // chain's wall time means both cores were busy throughout.
    machine_cpu_ms_median: cpu.length > 0 ? median(cpu) : null,
    step_ms_median: Object.fromEntries(Object.entries(perStep).map(([k, v]) => [k, median(v)])),
    // Where each step's time went (runner.step.timings), median per phase.
    phase_ms_median: Object.fromEntries(
      Object.entries(phases).map(([role, byPhase]) => [
        role,
        Object.fromEntries(Object.entries(byPhase).map(([k, v]) => [k, median(v)])),
      ]),
    ),
    // Steps whose agent was started while the step before ran (warm-agents.ts).
    warm_started: Object.fromEntries(
      Object.entries(warm).map(([role, v]) => [role, `${v.filter(Boolean).length}/${v.length}`]),
    ),
    load_average_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    // The goal is the demo chain's overhead; a project's setup phase is reported, not judged.
    ...(project ? {} : { goal_ms: 3000, meets_goal: median(times) < 3000 }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await benchChain(), null, 2)}\n`);
}
