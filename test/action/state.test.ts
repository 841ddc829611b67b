// The Action's journal between workflow runs, for real: a bare repository as the remote, the
// real SQLite journal. A consumed seal nonce is still consumed on a fresh runner (a replay is
// refused across workflow runs); of two workflow runs claiming one issue, one acts.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gateKeyOf } from "../../src/action/run-action.js";
import { claimState, StateBusyError, stateRef } from "../../src/action/state.js";
import { createSealer, fieldsFor } from "../../src/seal/index.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { tempDir } from "../helpers/git-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const t = tempDir("forge-action-state-");
  cleanups.push(t.cleanup);
  const remote = join(t.dir, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", remote]);
  /** A fresh runner: nothing on disk but its own temp directory. */
  const runner = (name: string) => {
    const dir = join(t.dir, name);
    execFileSync("mkdir", ["-p", dir]);
    return {
      dir,
      target: { remote, ref: stateRef(7), scratch: join(dir, "scratch.git") },
    };
  };
  return { runner };
}

const holder = (runId: string) => ({ runId, attempt: "1", actor: "alice" });

describe("the Action's state in refs/forge/state/<number>", () => {
  it("a seal used in one workflow run is refused as replayed in the next, on a fresh runner", async () => {
    const { runner } = setup();
    // Both jobs hold the same gate_secret, as two workflow runs of one repository do.
    const sealer = createSealer({
      key: gateKeyOf({ gateSecret: "forge-test-gate-secret-not-a-real-one-0000" }),
      clock: { now: () => new Date() },
    });
    const request = {
      gate: "resume" as const,
      runId: "run-a",
      fields: fieldsFor("resume", { actor: "alice", repo: "octo-org/widgets" }),
    };
    const { token } = sealer.seal(request);

    const a = await claimState({ ...runner("run-1"), holder: holder("1") });
    const j1 = openJournal(a.journalFile);
    const consume1 = (n: string, e: string) => j1.consumeNonce(n, e);
    expect(await sealer.verify(token, request, consume1)).toEqual({ ok: true });
    await j1.close();
    await a.release();

    const b = await claimState({ ...runner("run-2"), holder: holder("2") });
    const j2 = openJournal(b.journalFile);
    const consume2 = (n: string, e: string) => j2.consumeNonce(n, e);
    expect(await sealer.verify(token, request, consume2)).toEqual({
      ok: false,
      reason: "replayed",
    });
    // A new seal is fine: only the used one is refused.
    expect(await sealer.verify(sealer.seal(request).token, request, consume2)).toEqual({
      ok: true,
    });
    await j2.close();
    await b.release();
  });

  it("two workflow runs for one issue at once: exactly one acts, the other is told who does", async () => {
    const { runner } = setup();
    const results = await Promise.allSettled(
      ["1", "2", "3"].map((id) => claimState({ ...runner(`run-${id}`), holder: holder(id) })),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") {
        expect(r.reason).toBeInstanceOf(StateBusyError);
        expect(String(r.reason)).toMatch(
          /workflow run \d \(attempt 1, by alice\) is acting on this/,
        );
      }
    }
  }, 60_000);

  it("a claim older than any job may run is taken over; a released one is simply taken", async () => {
    const { runner } = setup();
    const old = new Date("2026-01-01T00:00:00Z");
    await claimState({ ...runner("run-1"), holder: holder("1"), now: () => old });
    await expect(claimState({ ...runner("run-2"), holder: holder("2") })).resolves.toBeDefined();
    // run-2 never released; run-3 an hour later is refused, seven hours later it takes over.
    const at = (h: number) => () => new Date(Date.now() + h * 3600_000);
    await expect(
      claimState({ ...runner("run-3"), holder: holder("3"), now: at(1) }),
    ).rejects.toThrow(StateBusyError);
    await expect(
      claimState({ ...runner("run-4"), holder: holder("4"), now: at(7) }),
    ).resolves.toBeDefined();
  });
});
