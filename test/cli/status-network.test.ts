// `forge status <run>` shows the network the run's boxes had and what each phase was refused,
// read from the journal by the real CLI bundle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord, StepRecord } from "../../src/chain/types.js";
import { openStore } from "../../src/cli/local/stack.js";
import { ensureBuilt } from "../harness/build.js";
import { forge, type Sandbox, sandbox } from "./cli-kit.js";

let s: Sandbox;
beforeAll(() => {
  ensureBuilt();
  s = sandbox();
});
afterAll(() => s.cleanup());

const now = new Date().toISOString();
function record(id: string): { run: RunRecord; steps: StepRecord[] } {
  const run: RunRecord = {
    id,
    chain: "change",
    state: "failed",
    task: { title: "egress", body: "" },
    repo: { remote: "/nowhere", baseRef: "main" },
    baseSha: null,
    branch: null,
    snapshot: { digest: "d", content: {} },
    requestBudget: 1,
    createdAt: now,
    updatedAt: now,
  };
  const steps = (["architect", "builder"] as const).map(
    (role, index): StepRecord => ({
      runId: id,
      index,
      role,
      state: "passed",
      attempt: 1,
      decision: { role, verdict: "PASS", reasons: [], overridden: false },
      output: null,
      startedAt: now,
      finishedAt: now,
    }),
  );
  return { run, steps };
}

async function seed(id: string, events: Array<{ type: string; data: Record<string, unknown> }>) {
  const store = openStore(s.env.FORGE_HOME as string);
  try {
    const { run, steps } = record(id);
    await store.createRun(run, steps, events);
  } finally {
    await store.close();
  }
}

describe("forge status: network", () => {
  it("the egress proxy, and the hosts each phase was refused", async () => {
    const id = "a1".repeat(16);
    await seed(id, [
      { type: "egress.mode", data: { mode: "proxy" } },
      { type: "run.setup.started", data: {} },
      {
        type: "egress.denied",
        data: { phase: "setup", host: "evil.example", port: 443, reason: "not on the allowlist" },
      },
      { type: "run.setup.finished", data: { ok: true, seconds: 1 } },
      {
        type: "egress.denied",
        data: {
          phase: "controls",
          host: "127.0.0.1",
          port: 9,
          reason: "loopback address",
          index: 1,
          role: "builder",
          attempt: 1,
        },
      },
    ]);
    const r = await forge(["status", id], s.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "  network    egress proxy: each box reached only what its phase allows; 2 connections refused\n",
    );
    expect(r.stdout).toMatch(
      /setup\s+ok 1 s\n\s+refused evil\.example:443 in setup: not on the allowlist\n/,
    );
    expect(r.stdout).toMatch(
      /builder\s+PASS\n\s+refused 127\.0\.0\.1:9 in controls: loopback address\n/,
    );
    const json = JSON.parse((await forge(["status", id, "--json"], s.env)).stdout);
    expect(json.network).toEqual({
      mode: { mode: "proxy" },
      denied: [
        { phase: "setup", host: "evil.example", port: 443, reason: "not on the allowlist" },
        {
          phase: "controls",
          role: "builder",
          index: 1,
          host: "127.0.0.1",
          port: 9,
          reason: "loopback address",
        },
      ],
    });
  });

  it("the host network, named plainly", async () => {
    const id = "b2".repeat(16);
    await seed(id, [{ type: "egress.mode", data: { mode: "host" } }]);
    const r = await forge(["status", id], s.env);
    expect(r.stdout).toContain(
      "  network    the boxes shared the host network (FORGE_EGRESS=host): nothing limited what they could reach\n",
    );
  });
});
