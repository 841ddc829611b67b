// The JournalStore contract: what every journal (SQLite, PostgreSQL) must do, run against each
// by its own test file with a real store behind it. Rules of the port, not of one database:
// transitions in one transaction, typed errors, append-only history, feedback and answers
// (R6.1, R6.2), nonces and deliveries once (R6.4, R1.5), proofs (R7.2).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FeedbackConflictError,
  FeedbackInvalidError,
  IllegalTransitionError,
  RequestAlreadyAnsweredError,
  RequestBudgetExceededError,
  ResponseConflictError,
  StaleStateError,
  UnknownRequestError,
  UnknownRunError,
} from "../../src/chain/errors.js";
import type { JournalStore } from "../../src/chain/ports.js";
import { makeFeedback, makeQuestion, makeRun } from "./journal-fixtures.js";

export interface JournalBackend {
  /** A new, empty journal. */
  open(): Promise<JournalStore>;
  /** The same journal again, after closing the open one (a process restart). */
  reopen(): Promise<JournalStore>;
  /** Raw SQL against the journal's database, past the store (as a hand-run session would). */
  exec(sql: string): Promise<void>;
  /** Closes what is open and removes the journal. */
  cleanup(): Promise<void>;
}

export function journalContract(label: string, backend: JournalBackend): void {
  const s = { journal: null as unknown as JournalStore };

  beforeEach(async () => {
    s.journal = await backend.open();
  });

  afterEach(async () => {
    await backend.cleanup();
  });

  async function seedRun(id = "run-1", budget = 2) {
    const { run, steps } = makeRun(id, { requestBudget: budget });
    await s.journal.createRun(run, steps, [{ type: "run.created", data: { chain: "change" } }]);
    return run;
  }

  describe(`${label}: the JournalStore contract`, () => {
    describe("runs, steps and transitions", () => {
      it("round-trips a run with its steps and its created event", async () => {
        const run = await seedRun();
        expect(await s.journal.getRun("run-1")).toEqual(run);
        const steps = await s.journal.getSteps("run-1");
        expect(steps.map((s) => [s.index, s.role, s.state, s.attempt])).toEqual([
          [0, "architect", "queued", 0],
          [1, "builder", "queued", 0],
          [2, "reviewer", "queued", 0],
          [3, "security", "queued", 0],
        ]);
        expect((await s.journal.events("run-1")).map((e) => e.type)).toEqual(["run.created"]);
        expect(await s.journal.getRun("nope")).toBeNull();
      });

      it("lists runs by state", async () => {
        await seedRun("run-a");
        await seedRun("run-b");
        await s.journal.transition("run-b", { run: { state: "running" }, events: [] });
        expect((await s.journal.listRuns({ states: ["running"] })).map((r) => r.id)).toEqual([
          "run-b",
        ]);
        expect((await s.journal.listRuns()).map((r) => r.id)).toEqual(["run-a", "run-b"]);
        expect(await s.journal.listRuns({ limit: 1 })).toHaveLength(1);
      });

      it("the most recent runs, oldest of them first; events by type; the latest of a type", async () => {
        for (const id of ["run-a", "run-b", "run-c"]) await seedRun(id);
        expect((await s.journal.recentRuns(2)).map((r) => r.id)).toEqual(["run-b", "run-c"]);
        await s.journal.transition("run-a", { events: [{ type: "run.driver", data: { pid: 1 } }] });
        await s.journal.transition("run-a", { events: [{ type: "x", data: {} }] });
        await s.journal.transition("run-a", { events: [{ type: "run.driver", data: { pid: 2 } }] });
        expect((await s.journal.latestEvent("run-a", "run.driver"))?.data).toEqual({ pid: 2 });
        expect(await s.journal.latestEvent("run-b", "run.driver")).toBeNull();
        const types = (await s.journal.eventsOfType("run-a", ["run.driver", "x"])).map(
          (e) => e.type,
        );
        expect(types).toEqual(["run.driver", "x", "run.driver"]);
        expect(await s.journal.eventsOfType("run-a", [])).toEqual([]);
      });

      it("applies the patches and appends the events in one transaction", async () => {
        await seedRun();
        const events = await s.journal.transition("run-1", {
          run: { state: "running", baseSha: "abc123" },
          step: { index: 0, patch: { state: "running", attempt: 1, startedAt: "t1" } },
          events: [
            { type: "run.started", data: {} },
            { type: "step.started", data: { index: 0, attempt: 1 } },
          ],
        });
        expect(events.map((e) => e.type)).toEqual(["run.started", "step.started"]);
        expect(events[1]?.seq).toBe((events[0]?.seq ?? 0) + 1);
        const run = await s.journal.getRun("run-1");
        expect(run?.state).toBe("running");
        expect(run?.baseSha).toBe("abc123");
        const [step] = await s.journal.getSteps("run-1");
        expect(step).toMatchObject({ state: "running", attempt: 1, startedAt: "t1" });
        const all = await s.journal.events("run-1");
        expect(all.map((e) => e.type)).toEqual(["run.created", "run.started", "step.started"]);
        expect(await s.journal.events("run-1", events[0]?.seq)).toHaveLength(1);
        expect((await s.journal.lastEvents("run-1", 2)).map((e) => e.type)).toEqual([
          "run.started",
          "step.started",
        ]);
      });

      it("refuses an illegal transition and writes nothing", async () => {
        await seedRun();
        await expect(
          s.journal.transition("run-1", {
            run: { state: "passed" },
            events: [{ type: "x", data: {} }],
          }),
        ).rejects.toBeInstanceOf(IllegalTransitionError);
        await expect(
          s.journal.transition("run-1", {
            step: { index: 0, patch: { state: "passed" } },
            events: [{ type: "x", data: {} }],
          }),
        ).rejects.toBeInstanceOf(IllegalTransitionError);
        expect((await s.journal.events("run-1")).map((e) => e.type)).toEqual(["run.created"]);
        expect((await s.journal.getRun("run-1"))?.state).toBe("queued");
        await expect(s.journal.transition("nope", { events: [] })).rejects.toBeInstanceOf(
          UnknownRunError,
        );
      });

      it("checks expectations inside the transaction (stale run state, stale attempt)", async () => {
        await seedRun();
        await expect(
          s.journal.transition("run-1", {
            events: [{ type: "x", data: {} }],
            expect: { runStates: ["running"] },
          }),
        ).rejects.toBeInstanceOf(StaleStateError);
        await expect(
          s.journal.transition("run-1", {
            step: { index: 0, patch: { state: "running", attempt: 1 } },
            events: [{ type: "x", data: {} }],
            expect: { stepAttempt: 3 },
          }),
        ).rejects.toBeInstanceOf(StaleStateError);
        expect(await s.journal.events("run-1")).toHaveLength(1);
      });
    });

    describe("append-only tables", () => {
      it("refuses UPDATE and DELETE of events, feedback, requests and responses (triggers)", async () => {
        await seedRun();
        await s.journal.recordFeedback("run-1", makeQuestion("req-1"));
        await s.journal.recordResponse("run-1", {
          id: "resp-1",
          requestId: "req-1",
          actor: "alice",
          answer: "users",
          createdAt: "t",
        });
        const attempts = [
          "UPDATE events SET type = 'forged'",
          "DELETE FROM events",
          "UPDATE feedback SET disposition = 'completed'",
          "DELETE FROM feedback",
          "UPDATE requests SET question = 'other'",
          "DELETE FROM requests",
          "UPDATE responses SET answer = 'admins'",
          "DELETE FROM responses",
        ];
        for (const sql of attempts) {
          await expect(backend.exec(sql), sql).rejects.toThrow(/append-only/);
        }
        expect((await s.journal.listResponses("run-1"))[0]?.answer).toBe("users");
      });

      it("enforces foreign keys: no event for a run that does not exist", async () => {
        await expect(
          backend.exec(
            "INSERT INTO events (run_id, type, data_json, at) VALUES ('ghost','x','{}','t')",
          ),
        ).rejects.toThrow(/foreign key/i);
      });

      it("creates a run atomically: a bad step leaves no run behind", async () => {
        const { run, steps } = makeRun("run-x");
        const bad = steps.map((s, i) => (i === 2 ? { ...s, runId: "other" } : s));
        await expect(s.journal.createRun(run, bad)).rejects.toThrow(/belongs to run other/);
        expect(await s.journal.getRun("run-x")).toBeNull();
        expect(await s.journal.getSteps("run-x")).toEqual([]);
      });
    });

    describe("feedback (R6.1, R6.2)", () => {
      it("journals feedback and its request; an identical replay is a duplicate", async () => {
        await seedRun();
        const fb = makeQuestion("req-1");
        expect(await s.journal.recordFeedback("run-1", fb)).toBe("inserted");
        // Same content in a different key order: still the same feedback.
        const { summary, ...rest } = fb;
        const reordered = JSON.parse(JSON.stringify({ summary, ...rest }));
        expect(await s.journal.recordFeedback("run-1", reordered)).toBe("duplicate");
        expect(await s.journal.listFeedback("run-1")).toEqual([fb]);
        const requests = await s.journal.listRequests("run-1");
        expect(requests).toHaveLength(1);
        expect(requests[0]).toMatchObject({ id: "req-1", status: "pending", feedbackId: fb.id });
        const types = (await s.journal.events("run-1")).map((e) => e.type);
        expect(types).toEqual(["run.created", "feedback.recorded", "request.created"]);
      });

      it("throws FeedbackConflictError for the same id with different content", async () => {
        await seedRun();
        await s.journal.recordFeedback("run-1", makeFeedback());
        await expect(
          s.journal.recordFeedback("run-1", makeFeedback({ summary: "Something else." })),
        ).rejects.toBeInstanceOf(FeedbackConflictError);
        expect(await s.journal.listFeedback("run-1")).toHaveLength(1);
      });

      it("refuses a request id that already belongs to another feedback", async () => {
        await seedRun();
        await s.journal.recordFeedback("run-1", makeQuestion("req-1"));
        await expect(
          s.journal.recordFeedback("run-1", makeQuestion("req-1", { id: "fb-other" })),
        ).rejects.toBeInstanceOf(FeedbackConflictError);
      });

      it("validates: questions carry exactly one request, other dispositions none", async () => {
        await seedRun();
        const bad = [
          makeFeedback({ disposition: "clarification" }),
          makeFeedback({ disposition: "blocked" }),
          { ...makeQuestion("req-1"), disposition: "completed" as const },
          { ...makeQuestion("req-2"), disposition: "failed" as const },
          makeFeedback({ attempt: 5 }),
          makeFeedback({ attempt: 0 }),
          makeFeedback({ evidence: ["../../etc/passwd"] }),
          makeFeedback({ id: "has space" }),
        ];
        for (const fb of bad) {
          await expect(
            s.journal.recordFeedback("run-1", fb),
            JSON.stringify(fb),
          ).rejects.toBeInstanceOf(FeedbackInvalidError);
        }
        expect(await s.journal.listFeedback("run-1")).toEqual([]);
        const blocked = makeQuestion("req-9", { disposition: "blocked" });
        expect(await s.journal.recordFeedback("run-1", blocked)).toBe("inserted");
      });

      it("limits new questions to the run's frozen budget; replays do not count", async () => {
        await seedRun("run-1", 1);
        await s.journal.recordFeedback("run-1", makeQuestion("req-1"));
        expect(await s.journal.recordFeedback("run-1", makeQuestion("req-1"))).toBe("duplicate");
        await expect(
          s.journal.recordFeedback("run-1", makeQuestion("req-2")),
        ).rejects.toBeInstanceOf(RequestBudgetExceededError);
        expect(await s.journal.listRequests("run-1")).toHaveLength(1);
      });

      it("journals feedback inside a transition, before its events; a conflict rolls all back", async () => {
        await seedRun();
        await s.journal.transition("run-1", {
          run: { state: "running" },
          step: { index: 0, patch: { state: "running", attempt: 1 } },
          events: [],
        });
        const evts = await s.journal.transition("run-1", {
          feedback: makeQuestion("req-1"),
          run: { state: "paused" },
          step: { index: 0, patch: { state: "blocked" } },
          events: [{ type: "run.paused", data: {} }],
        });
        expect(evts.map((e) => e.type)).toEqual([
          "feedback.recorded",
          "request.created",
          "run.paused",
        ]);
        await s.journal.recordFeedback("run-1", makeFeedback({ id: "fb-2" }));
        const before = (await s.journal.events("run-1")).length;
        await expect(
          s.journal.transition("run-1", {
            feedback: makeFeedback({ id: "fb-2", summary: "changed" }),
            run: { state: "running" },
            events: [{ type: "run.resumed", data: {} }],
          }),
        ).rejects.toBeInstanceOf(FeedbackConflictError);
        expect((await s.journal.events("run-1")).length).toBe(before);
        expect((await s.journal.getRun("run-1"))?.state).toBe("paused");
      });
    });

    describe("responses", () => {
      it("records one answer per request, with typed errors otherwise", async () => {
        await seedRun();
        await s.journal.recordFeedback("run-1", makeQuestion("req-1"));
        const answer = {
          id: "resp-1",
          requestId: "req-1",
          actor: "alice",
          answer: "users",
          createdAt: "t",
        };
        await expect(
          s.journal.recordResponse("run-1", { ...answer, requestId: "nope" }),
        ).rejects.toBeInstanceOf(UnknownRequestError);
        await s.journal.recordResponse("run-1", answer);
        expect((await s.journal.listRequests("run-1"))[0]?.status).toBe("answered");
        await expect(
          s.journal.recordResponse("run-1", { ...answer, id: "resp-2" }),
        ).rejects.toBeInstanceOf(RequestAlreadyAnsweredError);
        await s.journal.recordFeedback("run-1", makeQuestion("req-2"));
        await expect(
          s.journal.recordResponse("run-1", { ...answer, requestId: "req-2" }),
        ).rejects.toBeInstanceOf(ResponseConflictError);
        expect(await s.journal.listResponses("run-1")).toEqual([answer]);
        const last = await s.journal.lastEvents("run-1", 1);
        expect(last[0]?.type).toBe("request.created");
      });
    });

    describe("run leases (R10.2)", () => {
      it("one owner at a time: renewed by its owner, taken over only once expired, given back", async () => {
        await seedRun();
        const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
        expect(await s.journal.leaseRun("run-1", "replica-a", t(0), t(10))).toBe(true);
        expect(await s.journal.leaseRun("run-1", "replica-b", t(5), t(15))).toBe(false);
        expect(await s.journal.leaseRun("run-1", "replica-a", t(8), t(18))).toBe(true);
        // a's renewed lease runs to 18 s: b is still refused at 12 s, takes over at 19 s.
        expect(await s.journal.leaseRun("run-1", "replica-b", t(12), t(22))).toBe(false);
        expect(await s.journal.leaseRun("run-1", "replica-b", t(19), t(29))).toBe(true);
        expect(await s.journal.leaseRun("run-1", "replica-a", t(20), t(30))).toBe(false);
        // Only the holder gives it back.
        await s.journal.releaseRun("run-1", "replica-a");
        expect(await s.journal.leaseRun("run-1", "replica-a", t(21), t(31))).toBe(false);
        await s.journal.releaseRun("run-1", "replica-b");
        expect(await s.journal.leaseRun("run-1", "replica-a", t(21), t(31))).toBe(true);
      });

      it("of owners asking at once, exactly one gets it", async () => {
        await seedRun();
        const now = new Date().toISOString();
        const later = new Date(Date.now() + 60_000).toISOString();
        const got = await Promise.all(
          Array.from({ length: 8 }, (_, i) => s.journal.leaseRun("run-1", `r${i}`, now, later)),
        );
        expect(got.filter(Boolean)).toHaveLength(1);
      });
    });

    describe("nonces, deliveries, proofs", () => {
      it("consumes a nonce and marks a delivery once, also across a reopen", async () => {
        expect(await s.journal.consumeNonce("n1", "2026-01-01T00:10:00Z")).toBe(true);
        expect(await s.journal.consumeNonce("n1", "2026-01-01T00:10:00Z")).toBe(false);
        expect(await s.journal.markDelivery("d1")).toBe(true);
        expect(await s.journal.markDelivery("d1")).toBe(false);
        s.journal = await backend.reopen();
        expect(await s.journal.consumeNonce("n1", "2026-01-01T00:10:00Z")).toBe(false);
        expect(await s.journal.markDelivery("d1")).toBe(false);
        expect(await s.journal.markDelivery("d2")).toBe(true);
      });

      it("returns the latest proof per box", async () => {
        const proof = {
          boxKey: "bwrap:/repo",
          facts: { harness: "2.1.332" },
          ok: true,
          checks: [{ name: "contract", ok: true, detail: "sh, git" }],
          provedAt: "t1",
        };
        expect(await s.journal.latestProof("bwrap:/repo")).toBeNull();
        await s.journal.saveProof(proof);
        await s.journal.saveProof({ ...proof, ok: false, provedAt: "t2" });
        expect(await s.journal.latestProof("bwrap:/repo")).toEqual({
          ...proof,
          ok: false,
          provedAt: "t2",
        });
        expect(await s.journal.latestProof("bwrap:/other")).toBeNull();
      });
    });
  });
}
