// runAgentProcess and cancellation: a step cancelled before its box starts starts nothing;
// one cancelled while running ends, reported as cancelled.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentProcess } from "../../src/runner/agent-process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "forge-agent-proc-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function touching(file: string, thenSleep = 0) {
  return {
    command: "/bin/sh",
    args: ["-c", `touch "$1"; sleep ${thenSleep}`, "agent", file],
    env: { PATH: "/usr/bin:/bin" },
  };
}

describe("runAgentProcess cancellation", () => {
  it("already cancelled: nothing is started, the result says cancelled, onSpawn still runs", async () => {
    const marker = join(dir, "started");
    const controller = new AbortController();
    controller.abort();
    let spawned = 0;
    const r = await runAgentProcess(touching(marker), {
      timeoutMs: 10_000,
      signal: controller.signal,
      onSpawn: () => spawned++,
    });
    await new Promise((res) => setTimeout(res, 200));
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(existsSync(marker)).toBe(false);
    expect(spawned).toBe(1); // the runner closes its copy of the guard socket there
  });

  it("cancelled while running: the process ends and the result says cancelled", async () => {
    const marker = join(dir, "started");
    const controller = new AbortController();
    const pending = runAgentProcess(touching(marker, 30), {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    const end = Date.now() + 10_000;
    while (!existsSync(marker) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const r = await pending;
    expect(r.cancelled).toBe(true);
    expect(r.signal).toBe("SIGKILL");
  });
});
