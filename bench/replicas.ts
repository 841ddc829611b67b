// Two `forge serve` replicas on one PostgreSQL journal (a throwaway server), a fake GitHub
// Enterprise Server on loopback, the real claude CLI in bwrap boxes on the scripted model:
// 1. Time to the 2xx reply for 50 concurrent signed deliveries, each sent to both replicas
//    (100 requests at once; the journal decides which one acts). Goal p99 < 100 ms.
// 2. Takeover: a change chain is started on replica A; while its builder runs, A is killed
//    with SIGKILL; the time until B takes the run over (its lease ran out: FORGE_LEASE_MS,
//    default 15 s), and until the chain PASSes on B. Goal < 30 s to take over.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { demoScript } from "../src/demo/demo-script.js";
import { startModelServer } from "../src/scripted-model/server.js";
import { demoRemote } from "../test/app/demo-remote.js";
import { startFakeGitHub } from "../test/app/fake-github-server.js";
import { createGitHubState } from "../test/app/github-state.js";
import { issueLabeled } from "../test/app/payloads.js";
import { appCredentials, type ServeProcess, startServeProcess } from "../test/app/serve-process.js";
import { ensureBuilt } from "../test/harness/build.js";
import { startPostgres } from "../test/harness/postgres.js";

const CONCURRENCY = 50;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, i)] ?? Number.NaN) * 10) / 10;
}

async function until<T>(fn: () => T | undefined | null | false, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function benchReplicas(): Promise<Record<string, unknown>> {
  nock.restore(); // see bench/webhooks.ts: nock would intercept the timing client too
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), "forge-bench-replicas-"));
  const pg = await startPostgres();
  const state = createGitHubState();
  state.permissions.set("alice", "write");
  const { gitRoot } = await demoRemote(root);
  const fake = await startFakeGitHub({ state, gitRoot });
  const model = await startModelServer(demoScript());
  const app = appCredentials();
  const env = {
    DATABASE_URL: await pg.createDatabase("forge_bench_replicas"),
    FORGE_GATE_SECRET: "ab".repeat(24),
  };
  const replica = () =>
    startServeProcess({
      gheHost: fake.host,
      forgeHome: join(root, "home"),
      modelUrl: model.url,
      app,
      env,
    });
  const replicas: ServeProcess[] = [];
  try {
    const [a, b] = [await replica(), await replica()];
    replicas.push(a, b);

    // 1. Reply latency: a sequential warm-up, then 50 deliveries at once, each to both.
    for (let i = 0; i < 10; i++) {
      const payload = issueLabeled({ sender: "alice", number: 1000 + i, label: "bug" });
      await Promise.all([a.deliver("issues", payload), b.deliver("issues", payload)]);
    }
    // The warm-up's queued jobs (token, configuration) finish first: the burst is measured alone.
    await new Promise((r) => setTimeout(r, 5000));
    // Payloads made beforehand: the clock of each request starts when it is sent, so making
    // the next payloads must not count against it.
    const payloads = Array.from({ length: CONCURRENCY }, (_, i) =>
      issueLabeled({ sender: "alice", number: 2000 + i, label: "bug" }),
    );
    const burst = (
      await Promise.all(
        payloads.map((payload, i) =>
          Promise.all([
            a.deliver("issues", payload, { id: `bench-${i}` }),
            b.deliver("issues", payload, { id: `bench-${i}` }),
          ]),
        ),
      )
    ).flat();
    const non2xx = burst.filter((r) => r.status < 200 || r.status >= 300).length;
    const ms = burst.map((r) => r.ms).sort((x, y) => x - y);
    // Each delivery acted on once: the replica that claimed it second says so.
    const handled = () =>
      [...a.logs, ...b.logs].filter((l) => l.includes("redelivered webhook: already handled"))
        .length;
    await until(() => handled() >= CONCURRENCY, 60_000);

    // 2. Takeover after kill -9 of the replica driving a run.
    const slow = demoScript();
    const builder = slow.routes?.find((r) => r.marker.endsWith("builder"));
    if (!builder?.turns[0]) throw new Error("demo script has no builder route");
    builder.turns[0].delayMs = 60_000;
    model.setScript(slow);
    await a.deliver("issues", issueLabeled({ sender: "alice", number: 7 }));
    const running = await until(
      () => state.commentsOn(7).find((c) => /\| builder \| 🔄 running/.test(c.body)),
      300_000,
    );
    const runId = /forgechain:run:([0-9a-f]{32})/.exec(running.body)?.[1] ?? "";
    a.child.kill("SIGKILL");
    await new Promise((r) => a.child.once("exit", r));
    const killedAt = Date.now();
    model.setScript(demoScript());
    await until(
      () => b.logs.some((l) => l.includes("recovering unfinished runs") && l.includes(runId)),
      120_000,
    );
    const takeoverMs = Date.now() - killedAt;
    const passed = await until(
      () => state.commentsOn(7).find((c) => c.body.includes("change chain · ✅ passed")),
      300_000,
    );
    if (!passed.body.includes(runId)) throw new Error("another run passed than the one taken over");
    return {
      reply_latency_ms: {
        replicas: 2,
        journal: "PostgreSQL (loopback)",
        concurrent_deliveries: CONCURRENCY,
        requests: burst.length,
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        max: percentile(ms, 100),
        non_2xx: non2xx,
        goal_p99_ms: 100,
      },
      takeover: {
        lease_ms: 15_000,
        taken_over_ms_after_kill: takeoverMs,
        passed_ms_after_kill: Date.now() - killedAt,
        goal_takeover_ms: 30_000,
      },
      load_average_1m: loadavg()[0],
    };
  } finally {
    for (const r of replicas) await r.stop();
    await fake.close();
    await model.close();
    await pg.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await benchReplicas(), null, 2)}\n`);
}
