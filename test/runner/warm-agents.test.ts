// The warm-agent cache on its own: which agent a step gets, and that every other one is killed.
import { describe, expect, it } from "vitest";
import type { LaunchedAgent, PreparedAgent } from "../../src/runner/agent-launch.js";
import type { AgentProcessResult } from "../../src/runner/agent-process.js";
import { createWarmAgents, type WarmAgent } from "../../src/runner/warm-agents.js";

interface Fake {
  agent: WarmAgent;
  killed: () => boolean;
  cleaned: () => boolean;
}

function fakeAgent(opts: { exited?: boolean } = {}): Fake {
  let killed = false;
  let cleaned = false;
  let exited = opts.exited ?? false;
  const launched: LaunchedAgent = {
    handle: {
      get exited() {
        return exited;
      },
      send: () => {},
      kill: () => {
        killed = true;
        exited = true;
      },
      hold: () => {},
      wait: async () => ({ exitCode: null, signal: "SIGKILL" }) as AgentProcessResult,
    },
    invocation: { command: "claude", args: [], readOnlyEnforcement: "none", notes: [] },
    cleanup: async () => {
      cleaned = true;
      return [];
    },
  };
  return {
    agent: { prepared: {} as PreparedAgent, launched, before: null, commit: "0".repeat(40) },
    killed: () => killed,
    cleaned: () => cleaned,
  };
}

const key = (runId: string, index: number, role = "builder", attempt = 1) => ({
  runId,
  index,
  role,
  attempt,
});

describe("warm agents", () => {
  it("a discard while the agent is still starting waits for it and kills it", async () => {
    const warm = createWarmAgents();
    const a = fakeAgent();
    let release = () => {};
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const preparing = warm.prepare(key("r1", 1), async () => {
      await started;
      return a.agent;
    });
    // The step failed before its successor was up: nothing may be left running.
    const discarding = warm.discard("r1");
    release();
    await Promise.all([preparing, discarding]);
    expect(a.killed()).toBe(true);
    expect(await warm.take(key("r1", 1))).toBeNull();
  });

  it("a step that starts while its agent is still starting gets that agent", async () => {
    const warm = createWarmAgents();
    const a = fakeAgent();
    const preparing = warm.prepare(key("r1", 1), async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return a.agent;
    });
    expect(await warm.take(key("r1", 1))).toBe(a.agent);
    await preparing;
    expect(a.killed()).toBe(false);
  });

  it("a step gets the agent warmed for exactly it; nothing is killed", async () => {
    const warm = createWarmAgents();
    const a = fakeAgent();
    await warm.prepare(key("r1", 1), async () => a.agent);
    expect(await warm.take(key("r1", 1))).toBe(a.agent);
    expect(a.killed()).toBe(false);
    expect(await warm.take(key("r1", 1))).toBeNull();
  });

  it("another step of the run (a re-attempt, another role) kills it; other runs keep theirs", async () => {
    const warm = createWarmAgents();
    const a = fakeAgent();
    const other = fakeAgent();
    await warm.prepare(key("r1", 1), async () => a.agent);
    await warm.prepare(key("r2", 1), async () => other.agent);
    expect(await warm.take(key("r1", 1, "builder", 2))).toBeNull();
    expect(a.killed() && a.cleaned()).toBe(true);
    expect(other.killed()).toBe(false);
    expect(await warm.take(key("r2", 1))).toBe(other.agent);
  });

  it("discard kills a run's agents; an agent that died before its prompt is not handed out", async () => {
    const warm = createWarmAgents();
    const a = fakeAgent();
    await warm.prepare(key("r1", 3, "security"), async () => a.agent);
    await warm.discard("r1");
    expect(a.killed()).toBe(true);
    expect(await warm.take(key("r1", 3, "security"))).toBeNull();

    const dead = fakeAgent({ exited: true });
    await warm.prepare(key("r1", 3, "security"), async () => dead.agent);
    expect(await warm.take(key("r1", 3, "security"))).toBeNull();
    expect(dead.cleaned()).toBe(true);
  });

  it("an unused agent is killed after the idle limit; a failed start leaves nothing", async () => {
    const warm = createWarmAgents(50);
    const a = fakeAgent();
    await warm.prepare(key("r1", 1), async () => a.agent);
    await new Promise((r) => setTimeout(r, 150));
    expect(a.killed()).toBe(true);
    expect(await warm.take(key("r1", 1))).toBeNull();

    await warm.prepare(key("r1", 1), async () => {
      throw new Error("bwrap missing");
    });
    expect(await warm.take(key("r1", 1))).toBeNull();
  });
});
