// A run whose process died: `forge status` and a later `forge run` say so, `forge resume`
// continues it from the journal; `forge cancel` from another terminal stops a live run.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { ensureBuilt } from "../harness/build.js";
import { clarificationTurn, withRole } from "../runner/chain-helpers.js";
import {
  demoRepo,
  forge,
  runIdOf,
  type Sandbox,
  sandbox,
  slowRole,
  spawnForge,
} from "./cli-kit.js";

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

function modelSandbox(): Sandbox & { env: Record<string, string> } {
  const s = sandbox();
  cleanups.push(s.cleanup);
  s.env.ANTHROPIC_BASE_URL = model.url;
  s.env.ANTHROPIC_API_KEY = "sk-ant-forge-test-not-a-real-key";
  return s;
}

describe("a run left running by a process that is gone", () => {
  it("is named by forge status and forge run, and forge resume finishes it", async () => {
    const s = modelSandbox();
    const repo = await demoRepo(s);
    model.setScript(slowRole("builder", 60_000));
    const first = spawnForge(["run", "--repo", repo, "--task", "Greet louder"], s.env);
    await first.waitFor(/builder\s+running/);
    const id = runIdOf(first.out());
    // The terminal is closed: the process dies without a word (its boxes die with it).
    first.child.kill("SIGKILL");
    await first.exited;

    const list = await forge(["status"], s.env);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+running \\(orphaned\\)`));
    const one = await forge(["status", id.slice(0, 10)], s.env);
    expect(one.stdout).toMatch(
      /was left running by forge run \(pid \d+ on [^)]+\): process \d+ has ended/,
    );
    expect(one.stdout).toContain(`forge resume ${id}`);
    expect(one.stdout).toContain(`forge cancel ${id}`);

    // A later `forge run` says so before anything else (here it then stops at the box gate).
    const other = await demoRepo(s, "other");
    const later = await forge(["run", "--repo", other, "--task", "x", "--box", "worktree"], s.env);
    expect(later.stdout).toContain(`note: run ${id}`);
    expect(later.stdout).toContain(`forge resume ${id}`);

    model.setScript(demoScript());
    const resumed = await forge(["resume", id.slice(0, 8)], s.env);
    expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stdout).toContain(`resuming run ${id} (change chain, was running)`);
    expect(resumed.stdout).toContain(`run ${id}: PASSED`);
    const status = JSON.parse((await forge(["status", id, "--json"], s.env)).stdout) as {
      run: { state: string };
      steps: Array<{ role: string; state: string; attempt: number }>;
      driver: { orphaned: boolean };
    };
    expect(status.run.state).toBe("passed");
    expect(status.steps.map((x) => [x.role, x.state, x.attempt])).toEqual([
      ["architect", "passed", 1],
      ["builder", "passed", 2],
      ["reviewer", "passed", 1],
      ["security", "passed", 1],
    ]);
    expect(status.driver.orphaned).toBe(false);
    // Nothing left to resume.
    const again = await forge(["resume", id], s.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is passed: it does not continue/);
  }, 300_000);
});

describe("forge cancel from another terminal", () => {
  it("stops the live run at once: its agent ends, it is journaled cancelled", async () => {
    const s = modelSandbox();
    const repo = await demoRepo(s);
    model.setScript(slowRole("builder", 120_000));
    const live = spawnForge(["run", "--repo", repo, "--task", "Greet louder"], s.env);
    await live.waitFor(/builder\s+running/);
    const id = runIdOf(live.out());
    // A second driver is refused while the first lives.
    const twice = await forge(["resume", id], s.env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/is still driven by forge run \(pid \d+/);

    const started = Date.now();
    const cancel = await forge(["cancel", id, "--reason", "wrong task"], s.env);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`run ${id}: cancelled (was running)`);
    expect(cancel.stdout).toMatch(
      /forge run \(pid \d+.*\) drives it: it stops its agent within a second/,
    );
    expect(await live.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(live.out()).toContain(`run ${id}: CANCELLED`);
    const status = await forge(["status", id], s.env);
    expect(status.stdout).toMatch(/builder\s+FAIL/);
    expect(status.stdout).toContain("the run was cancelled while the step ran: wrong task");
  }, 240_000);
});

describe("a run paused on a question", () => {
  it("forge answer journals the answer, then forge resume continues it to its end", async () => {
    const s = modelSandbox();
    const repo = await demoRepo(s);
    const base = demoScript();
    const architect = base.routes?.find((r) => r.marker === "forgechain step: architect");
    const asking = withRole("architect", [clarificationTurn()], base);
    model.setScript({
      ...asking,
      // The re-attempt's prompt carries the answer; the first attempt's does not.
      routes: [
        { marker: "Answers to your earlier questions", turns: architect?.turns ?? [] },
        ...(asking.routes ?? []),
      ],
    });
    const first = await forge(["run", "--repo", repo, "--task", "Greet louder"], s.env);
    expect(first.code).toBe(1);
    const id = runIdOf(first.stdout);
    expect(first.stdout).toContain("question greeting-style: Exclamation mark or a full stop?");
    const early = await forge(["resume", id], s.env);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/waits for an answer to greeting-style/);
    const answer = await forge(
      ["answer", id, "greeting-style", "An", "exclamation", "mark"],
      s.env,
    );
    expect(answer.code, answer.stderr).toBe(0);
    const resumed = await forge(["resume", id], s.env);
    expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stdout).toContain(`resuming run ${id} (change chain, was paused)`);
    expect(resumed.stdout).toContain(`run ${id}: PASSED`);
  }, 240_000);
});
