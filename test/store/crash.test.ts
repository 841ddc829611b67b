// A real kill -9: a child process appends events and prints each acknowledged seq; we SIGKILL it
// at random moments, reopen the file and check that nothing acknowledged was lost.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { type TempDir, tempDir } from "./journal-fixtures.js";

const CHILD = fileURLToPath(new URL("./fixtures/append-loop.ts", import.meta.url));
const ROUNDS = 6;

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir("forge-crash-");
});
afterEach(() => tmp.cleanup());

/** Run the child until it has acknowledged `minAcks` events (+ a random delay), then SIGKILL. */
function runAndKill(file: string, runId: string, minAcks: number, extraMs: number) {
  return new Promise<{ acked: Array<[number, number]>; signal: string | null }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", CHILD, file, runId], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const acked: Array<[number, number]> = [];
      let buffer = "";
      let stderr = "";
      let killing = false;
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        const lines = buffer.split("\n");
        // Only complete lines are acknowledgements; a torn last line is not.
        buffer = lines.pop() ?? "";
        for (const line of lines) {
          if (line === "ready") continue;
          const [seq, i] = line.split(" ").map(Number);
          acked.push([seq as number, i as number]);
        }
        if (!killing && acked.length >= minAcks) {
          killing = true;
          setTimeout(() => child.kill("SIGKILL"), extraMs);
        }
      });
      child.on("error", reject);
      child.on("close", (code, signal) => {
        if (signal !== "SIGKILL") reject(new Error(`child ended by itself (${code}): ${stderr}`));
        else resolve({ acked, signal });
      });
    },
  );
}

describe("journal durability under kill -9", () => {
  it("keeps every acknowledged event and stays consistent across random kills", async () => {
    const file = tmp.file("crash.db");
    const runId = "run-crash";
    const allAcked: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const minAcks = 5 + Math.floor(Math.random() * 400);
      const extraMs = Math.floor(Math.random() * 40);
      const { acked } = await runAndKill(file, runId, minAcks, extraMs);
      expect(acked.length).toBeGreaterThanOrEqual(minAcks);
      allAcked.push(...acked.map(([seq]) => seq));

      const raw = new Database(file);
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
      raw.close();

      const journal = openJournal(file);
      const events = await journal.events(runId);
      const seqs = new Set(events.map((e) => e.seq));
      const missing = allAcked.filter((s) => !seqs.has(s));
      expect(missing, `round ${round}: acknowledged but lost`).toEqual([]);
      // Ticks are contiguous: no hole in the middle of the history.
      const ticks = events.filter((e) => e.type === "tick").map((e) => e.data.i as number);
      expect(ticks).toEqual(ticks.map((_, k) => k));
      // The row and the last event were written in one transaction.
      const [step] = await journal.getSteps(runId);
      expect(step?.output).toEqual({ i: ticks.at(-1) });
      expect(journal.integrityCheck()).toBe("ok");
      await journal.close();
    }
    expect(allAcked.length).toBeGreaterThan(ROUNDS * 5);
  }, 120_000);
});
