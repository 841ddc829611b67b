// Durability with the real runner: kill -9 mid-chain and a paused question survive a restart.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import type { Script } from "../../src/scripted-model/server.js";
import {
  chainFixture,
  clarificationTurn,
  reopenStack,
  root,
  startChain,
  useModelServer,
} from "./chain-helpers.js";

const server = useModelServer();

function slowBuilder(): Script {
  const script = demoScript();
  const routes = (script.routes ?? []).map((r) =>
    r.marker === "forgechain step: builder"
      ? { ...r, turns: r.turns.map((t, i) => (i === 0 ? { ...t, delayMs: 4000 } : t)) }
      : r,
  );
  return { ...script, routes };
}

async function waitFor<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("restart mid-chain (R10.1)", () => {
  it("a SIGKILLed process's run resumes and finishes; no step lost or run twice", async () => {
    server.setScript(slowBuilder());
    server.reset();
    const f = await chainFixture({ server });
    await f.stack.close(); // the child owns the journal while it runs
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(root, "test/runner/child/drive-chain.ts"), f.forgeHome, f.repo],
      {
        env: { ...process.env, FORGE_TEST_MODEL_URL: server.url },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += String(d);
    });
    const exited = new Promise((r) => child.on("exit", r));
    const runId = await waitFor(async () => /run ([0-9a-f]{32})/.exec(out)?.[1], 60_000);
    const watcher = reopenStack(f, server);
    // Kill the whole process group (the child, its claude and bwrap) while the builder runs.
    await waitFor(async () => {
      const steps = await watcher.store.getSteps(runId);
      return steps[1]?.state === "running" ? true : undefined;
    }, 60_000);
    process.kill(-(child.pid as number), "SIGKILL");
    await exited;
    await watcher.close();

    const stack = reopenStack(f, server);
    try {
      const resumed = await stack.engine.recover();
      expect(resumed.map((r) => r.id)).toEqual([runId]);
      const final = await stack.engine.settled(runId);
      expect(final?.state).toBe("passed");
      const events = await stack.store.events(runId);
      const starts = events
        .filter((e) => e.type === "step.started")
        .map((e) => `${e.data.role}#${e.data.attempt}`);
      expect(starts).toEqual(["architect#1", "builder#1", "builder#2", "reviewer#1", "security#1"]);
      expect(events.some((e) => e.type === "step.interrupted" && e.data.role === "builder")).toBe(
        true,
      );
      const passes = events
        .filter((e) => e.type === "step.finished" && e.data.verdict === "PASS")
        .map((e) => e.data.role);
      expect(passes).toEqual(["architect", "builder", "reviewer", "security"]);
    } finally {
      await stack.close();
      await f.cleanup().catch(() => undefined);
    }
  });
});

describe("a clarification request (R6.1–R6.2)", () => {
  it("pauses the run, survives a restart, and the answer reaches the re-attempt", async () => {
    const base = demoScript();
    const ask = clarificationTurn();
    const architectRoute = base.routes?.find((r) => r.marker === "forgechain step: architect");
    server.setScript({
      ...base,
      routes: [
        // The re-attempt's prompt carries the answer; the first attempt's does not.
        { marker: "Answers to your earlier questions", turns: architectRoute?.turns ?? [] },
        ...(base.routes ?? []).map((r) =>
          r.marker === "forgechain step: architect" ? { ...r, turns: [ask] } : r,
        ),
      ],
    });
    server.reset();
    const f = await chainFixture({ server });
    const run = await startChain(f);
    const paused = await f.stack.engine.drive(run.id);
    expect(paused.state).toBe("paused");
    await f.stack.close();

    // A restart: a new engine on the same journal leaves the question alone (no automatic retry).
    const stack = reopenStack(f, server);
    try {
      expect(await stack.engine.recover()).toEqual([]);
      const status = await stack.engine.status(run.id);
      expect(status.run.state).toBe("paused");
      expect(status.pendingRequests.map((r) => r.id)).toEqual(["greeting-style"]);
      await expect(stack.engine.resume(run.id)).rejects.toThrow(
        /waits for an answer to greeting-style/,
      );
      await stack.engine.respond(run.id, {
        requestId: "greeting-style",
        answer: "An exclamation mark.",
        actor: "maintainer",
        responseId: "response-1",
      });
      expect((await stack.engine.status(run.id)).run.state).toBe("paused");
      await stack.engine.resume(run.id);
      const final = await stack.engine.settled(run.id);
      expect(final?.state).toBe("passed");
      const answered = server.requests.some((r) =>
        JSON.stringify(r.body).includes("An exclamation mark."),
      );
      expect(answered).toBe(true);
      const steps = await stack.store.getSteps(run.id);
      expect(steps[0]?.attempt).toBe(2);
    } finally {
      await stack.close();
      await f.cleanup().catch(() => undefined);
    }
  });
});
