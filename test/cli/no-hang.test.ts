// `forge run` never hangs on a model that does not answer: an endpoint that is down is named
// before anything starts; an agent whose model stalls is ended after FORGE_IDLE_TIMEOUT and
// its step FAILs saying so.

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/cli/local/stack.js";
import { demoScript } from "../../src/demo/demo-script.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { ensureBuilt } from "../harness/build.js";
import { demoRepo, forge, runIdOf, sandbox, slowRole } from "./cli-kit.js";

let model: ModelServer;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  ensureBuilt();
  model = await startModelServer(demoScript());
});
afterAll(async () => model.close());
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(() => r(null)));
  return port;
}

describe("forge run with the model endpoint down", () => {
  it("stops at once, naming ANTHROPIC_BASE_URL, and journals no run", async () => {
    const s = sandbox();
    cleanups.push(s.cleanup);
    const repo = await demoRepo(s);
    const url = `http://127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const r = await forge(
      ["run", "--repo", repo, "--task", "Greet louder"],
      {
        ...s.env,
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
      },
      60_000,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`ANTHROPIC_BASE_URL=${url}`);
    expect(r.stderr).toMatch(/the model endpoint does not answer: .* \(connection refused\)/);
    expect(r.stderr).toMatch(/nothing ran/);
    const store = openStore(s.env.FORGE_HOME as string);
    expect(await store.listRuns()).toEqual([]);
    await store.close();
  }, 90_000);
});

describe("an agent whose model stalls", () => {
  it("is ended after FORGE_IDLE_TIMEOUT; its step FAILs with that reason and the run ends", async () => {
    const s = sandbox();
    cleanups.push(s.cleanup);
    const repo = await demoRepo(s);
    // The endpoint answers (the check passes) but the architect's first answer never comes.
    model.setScript(slowRole("architect", 10 * 60_000));
    const started = Date.now();
    const r = await forge(
      ["run", "--repo", repo, "--task", "Greet louder"],
      {
        ...s.env,
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
        FORGE_IDLE_TIMEOUT: "4",
      },
      150_000,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(Date.now() - started).toBeLessThan(120_000);
    const id = runIdOf(r.stdout);
    expect(r.stdout).toContain(`run ${id}: FAILED`);
    expect(r.stdout).toMatch(/architect\s+FAIL/);
    expect(r.stdout).toMatch(/the agent showed no progress for 4 s while it waited for its model/);
    const status = await forge(["status", id], s.env);
    expect(status.stdout).toMatch(/the agent showed no progress for 4 s/);
    expect(status.stdout).toMatch(/builder\s+queued/);
  }, 180_000);
});
