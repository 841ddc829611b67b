// Webhook handling of the real `forge serve` (Probot's server, child process) against a fake
// GitHub Enterprise Server on loopback (test/app/fake-github-server.ts, git via http-backend):
// 1. GitHub API requests for one full 4-role change chain (real claude CLI in bwrap on the
//    scripted model), counted from the requests the fake received. Goal ≤ 40.
// 2. Time to the 2xx reply for 50 concurrent signed deliveries. Each is an `issues.labeled`
//    on its own issue, taking the full handler path (signature, parse, delivery journaled,
//    job queued); the queued work (token, mirror fetch, policy, label check) is not awaited
//    by the reply. Goal p99 < 100 ms.
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
import { startServeProcess } from "../test/app/serve-process.js";
import { ensureBuilt } from "../test/harness/build.js";

const CONCURRENCY = 50;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, i)] ?? Number.NaN) * 10) / 10;
}

async function until<T>(fn: () => T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function benchWebhooks(): Promise<Record<string, unknown>> {
  // The fake GitHub's request checker lives beside the nock harness, and loading nock
  // intercepts every http request of this process (the timing client's too): switch it off.
  nock.restore();
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), "forge-bench-webhooks-"));
  const state = createGitHubState();
  state.permissions.set("alice", "write");
  const { gitRoot } = await demoRemote(root);
  const fake = await startFakeGitHub({ state, gitRoot });
  const model = await startModelServer(demoScript());
  const serve = await startServeProcess({
    gheHost: fake.host,
    forgeHome: join(root, "home"),
    modelUrl: model.url,
  });
  try {
    // 1. One full change chain.
    const chainStart = Date.now();
    const first = await serve.deliver("issues", issueLabeled({ sender: "alice", number: 7 }));
    await until(() => state.checkRuns.find((c) => c.name === "forge/gate"), 300_000);
    await new Promise((r) => setTimeout(r, 3000)); // the last sticky edit after the gate
    const chainRequests = [...fake.api];
    const byOperation: Record<string, number> = {};
    for (const r of chainRequests) {
      const key = `${r.method} ${r.pathname
        .replace(/\/\d+(?=\/|$)/g, "/{n}")
        .replace(/[0-9a-f]{40}/g, "{sha}")
        .replace(/collaborators\/[^/]+/, "collaborators/{user}")}`;
      byOperation[key] = (byOperation[key] ?? 0) + 1;
    }

    // 2. Reply latency: sequential warm-up, then 50 at once.
    const sequential: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await serve.deliver(
        "issues",
        issueLabeled({ sender: "alice", number: 1000 + i, label: "bug" }),
      );
      if (r.status >= 300) throw new Error(`delivery answered ${r.status}`);
      sequential.push(r.ms);
    }
    const burst = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        serve.deliver("issues", issueLabeled({ sender: "alice", number: 2000 + i, label: "bug" })),
      ),
    );
    const failed = burst.filter((r) => r.status < 200 || r.status >= 300).length;
    const ms = burst.map((r) => r.ms).sort((a, b) => a - b);
    const seq = sequential.sort((a, b) => a - b);
    return {
      change_chain: {
        first_reply_ms: Math.round(first.ms * 10) / 10,
        wall_s: Math.round((Date.now() - chainStart) / 100) / 10,
        github_api_requests: chainRequests.length,
        goal_max_requests: 40,
        git_http_requests: fake.git.length,
        by_operation: byOperation,
      },
      reply_latency_ms: {
        concurrent: CONCURRENCY,
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        max: percentile(ms, 100),
        non_2xx: failed,
        sequential_p50: percentile(seq, 50),
        goal_p99_ms: 100,
      },
      load_average_1m: loadavg()[0],
      note: "2 shared cores; the reply never waits for the queued work; write requests are spaced 1 s apart by Probot's throttling plugin, which bounds the chain's wall time",
    };
  } finally {
    await serve.stop();
    await fake.close();
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await benchWebhooks(), null, 2)}\n`);
}
