// Warm starts (src/runner/warm-agents.ts) with the real claude binary in real bwrap boxes: the
// next step's agent starts while a step runs, but its prompt — its work — waits for that step's
// PASS (R3.4), and a step that does not PASS takes its warm successor down unprompted. A warm
// agent keeps no picture of the tree from its start (no git status snapshot in its context).
// Also: the prompt travels on stdin, so a prompt above Linux's 128 KiB argv-string cap works.
import { readdirSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import type { RecordedRequest, Script, Turn } from "../../src/scripted-model/server.js";
import { clarificationTurn, runScripted, useModelServer, withRole } from "./chain-helpers.js";

const server = useModelServer();

const ROLES = ["architect", "builder", "reviewer", "security"] as const;

function turnsOf(script: Script, role: string): Turn[] {
  const route = script.routes?.find((r) => r.marker === `forgechain step: ${role}`);
  if (!route) throw new Error(`no ${role} route`);
  return route.turns;
}

/** The main requests one role's agent sent, in order. */
function requestsOf(role: (typeof ROLES)[number]): RecordedRequest[] {
  return server.mainRequests().filter((r) => r.route === ROLES.indexOf(role));
}

/** Per role, whether its agent was started warm (runner.step.prepared). */
function warmStartsOf(events: Array<{ type: string; data: Record<string, unknown> }>) {
  return Object.fromEntries(
    events
      .filter((e) => e.type === "runner.step.prepared")
      .map((e) => [e.data.role, e.data.warmStart]),
  );
}

/** Host pids of processes whose working directory is under `dir` (boxes bind it 1:1). */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

describe("warm starts (the next agent waits for its prompt)", () => {
  it("starts the builder, reviewer and security agents early, and prompts each only after the step before PASSed", async () => {
    const script = demoScript();
    // The architect and the builder think for a while: long enough for a warm agent to be up.
    const slowLast = (role: "architect" | "builder") =>
      turnsOf(script, role).map((t, i, all) =>
        i === all.length - 1 ? { ...t, delayMs: 1500 } : t,
      );
    const { f, final, events } = await runScripted(
      server,
      withRole(
        "builder",
        slowLast("builder"),
        withRole("architect", slowLast("architect"), script),
      ),
    );
    try {
      expect(final.state).toBe("passed");
      const warm = warmStartsOf(events);
      expect(warm).toEqual({ architect: false, builder: true, reviewer: true, security: true });
      const finished = (role: string) =>
        Date.parse(
          events.find((e) => e.type === "step.finished" && e.data.role === role)?.at ?? "",
        );
      // R3.4: the warm agents got their prompts (their first model request) after the PASS.
      expect(requestsOf("builder")[0]?.at).toBeGreaterThanOrEqual(finished("architect"));
      expect(requestsOf("reviewer")[0]?.at).toBeGreaterThanOrEqual(finished("builder"));
      expect(requestsOf("security")[0]?.at).toBeGreaterThanOrEqual(finished("reviewer"));
      // The reviewer's agent started while the builder was still at work (before its last
      // model request), so it must not carry the tree as it was then: Claude Code's start-time
      // git status snapshot is off (includeGitInstructions: false) for every agent.
      const warmedAt = (role: string) => {
        const e = events.find(
          (x) => x.type === "agent.warm_started" && (x.data.next as { role: string }).role === role,
        );
        return Date.parse(String(e?.data.startedAt));
      };
      expect(warmedAt("reviewer")).toBeLessThan(requestsOf("builder").at(-1)?.at ?? 0);
      for (const r of server.mainRequests())
        expect(JSON.stringify(r.body)).not.toContain("gitStatus");
      // Each got its own step's prompt, once.
      for (const role of ROLES) {
        const first = JSON.stringify(requestsOf(role)[0]?.body ?? "");
        expect(first).toContain(`forgechain step: ${role}`);
        expect(requestsOf(role).filter((r) => r.turn === 0)).toHaveLength(1);
      }
      expect(processesUnder(f.forgeHome)).toEqual([]);
    } finally {
      await f.cleanup();
    }
  });

  it("a step that asks a question pauses the run and kills its warm successor unprompted", async () => {
    const ask: Turn = { ...clarificationTurn(), delayMs: 1500 };
    const { f, final } = await runScripted(server, withRole("architect", [ask]));
    try {
      // Paused: no finishRun comes to clean up, the runner itself must have killed it.
      expect(final.state).toBe("paused");
      expect(requestsOf("builder")).toEqual([]);
      expect(processesUnder(f.forgeHome)).toEqual([]);
    } finally {
      await f.cleanup();
    }
  });

  it("a step that FAILs kills its warm successor before it was ever prompted", async () => {
    const { f, final, status } = await runScripted(
      server,
      withRole("architect", [{ text: "No plan today.", delayMs: 1500 }]),
    );
    try {
      expect(final.state).toBe("failed");
      expect(status.steps.map((s) => s.state)).toEqual(["failed", "queued", "queued", "queued"]);
      expect(requestsOf("builder")).toEqual([]);
      // Not left waiting for a prompt that never comes (the idle limit is a minute away).
      expect(processesUnder(f.forgeHome)).toEqual([]);
    } finally {
      await f.cleanup();
    }
  });

  it("a prompt above 128 KiB (one argv string's limit) reaches the reviewer whole", async () => {
    const script = demoScript();
    const marker = "END-OF-THE-BIG-FILE-7f3a";
    const big = `${"a line of generated data, long enough to add up\n".repeat(4000)}${marker}\n`;
    const builder = turnsOf(script, "builder").map((t, i) =>
      i === 1 && "tools" in t
        ? {
            ...t,
            tools: [...t.tools, { name: "Write", input: { file_path: "big.txt", content: big } }],
          }
        : t,
    );
    expect(big.length).toBeGreaterThan(180 * 1024);
    const { f, final, status } = await runScripted(server, withRole("builder", builder, script));
    try {
      expect(status.steps.map((s) => s.state)).toEqual(["passed", "passed", "passed", "passed"]);
      expect(final.state).toBe("passed");
      expect(JSON.stringify(requestsOf("reviewer")[0]?.body)).toContain(marker);
    } finally {
      await f.cleanup();
    }
  });

  it("a run frozen with settings that read the tree at start: the reviewer starts cold, after its snapshot", async () => {
    // Runs frozen before includeGitInstructions: false: Claude Code then takes git status when
    // it starts, so an agent behind the builder (whose tree changes) must start on its own tree.
    const dropKey = (content: Record<string, unknown>) => {
      const roles = content.roles as Record<string, { settings: Record<string, unknown> }>;
      for (const role of ROLES) delete roles[role]?.settings.includeGitInstructions;
    };
    const { f, final, events } = await runScripted(server, demoScript(), {}, dropKey);
    try {
      expect(final.state).toBe("passed");
      const warm = warmStartsOf(events);
      // Behind a read-only step the tree does not change: those may still start early.
      expect(warm).toEqual({ architect: false, builder: true, reviewer: false, security: true });
      // The reviewer's start-time picture is of the tree with the builder's commit.
      const first = JSON.stringify(requestsOf("reviewer")[0]?.body ?? "");
      expect(first).toContain("gitStatus");
      expect(first).toMatch(/Status:\\n\(clean\)/);
      expect(first).toContain("forgechain: the builder's work (run");
      expect(first).toContain("forgechain step: reviewer");
    } finally {
      await f.cleanup();
    }
  });
});
