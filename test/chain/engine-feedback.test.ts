// Worker questions, human answers and resume (R6.1–R6.3) on the real SQLite journal.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  RequestAlreadyAnsweredError,
  RequestPendingError,
  RunNotPausedError,
  RunRepoMismatchError,
  UnknownRequestError,
  UnknownRunError,
} from "../../src/chain/errors.js";
import { MAX_ATTEMPTS } from "../../src/chain/types.js";
import { type TempDir, tempDir } from "../store/journal-fixtures.js";
import { changeRun, makeEngine } from "./engine-harness.js";
import { ask, pass, ScriptedRunner } from "./scripted-runner.js";

let tmp: TempDir;
let runner: ScriptedRunner;
let h: ReturnType<typeof makeEngine>;

beforeEach(() => {
  tmp = tempDir("forge-feedback-");
  runner = new ScriptedRunner();
  h = makeEngine(tmp.file("journal.db"), runner);
});
afterEach(async () => {
  await h.engine.idle();
  await h.store.close();
  tmp.cleanup();
});

const answer = (requestId: string, responseId = `resp-${requestId}`) => ({
  requestId,
  answer: "users",
  actor: "alice",
  responseId,
});

async function pausedOnQuestion(requestId = "req-1", budget = 2) {
  runner.on("architect", ask(requestId));
  const run = await h.engine.startRun(changeRun({ requestBudget: budget }));
  const paused = await h.engine.drive(run.id);
  return { run, paused };
}

describe("a clarification request", () => {
  it("pauses the run; the feedback and its request are journaled before the pause", async () => {
    const { run, paused } = await pausedOnQuestion();
    expect(paused.state).toBe("paused");
    const steps = await h.store.getSteps(run.id);
    expect(steps.map((s) => s.state)).toEqual(["blocked", "queued", "queued", "queued"]);
    const events = await h.store.events(run.id);
    const seq = (type: string) => events.find((e) => e.type === type)?.seq ?? Number.NaN;
    expect(seq("feedback.recorded")).toBeLessThan(seq("run.paused"));
    expect(seq("request.created")).toBeLessThan(seq("run.paused"));
    expect(events.find((e) => e.type === "run.paused")?.data.request).toMatchObject({
      id: "req-1",
      question: "Who receives the greeting?",
    });
    const status = await h.engine.status(run.id);
    expect(status.pendingRequests.map((r) => r.id)).toEqual(["req-1"]);
    expect(status.lastEvents.at(-1)?.type).toBe("run.paused");
    expect(runner.calls.map((c) => c.role)).toEqual(["architect"]);
    expect(runner.finished).toEqual([]);
  });

  it("stays paused after an answer; resume while pending is refused", async () => {
    const { run } = await pausedOnQuestion();
    await expect(h.engine.resume(run.id)).rejects.toBeInstanceOf(RequestPendingError);
    const response = await h.engine.respond(run.id, answer("req-1"));
    expect(response).toMatchObject({ id: "resp-req-1", requestId: "req-1", actor: "alice" });
    expect((await h.store.getRun(run.id))?.state).toBe("paused");
    expect((await h.engine.status(run.id)).pendingRequests).toEqual([]);
    expect(runner.calls).toHaveLength(1);
  });

  it("resume re-runs the step as attempt 2 with the answer, and the chain continues", async () => {
    const { run } = await pausedOnQuestion();
    await h.engine.respond(run.id, answer("req-1"));
    const resumed = await h.engine.resume(run.id, { actor: "alice" });
    expect(resumed.state).toBe("running");
    const done = await h.engine.settled(run.id);
    expect(done?.state).toBe("passed");
    const arch = runner.callsFor("architect");
    expect(arch.map((c) => c.attempt)).toEqual([1, 2]);
    expect(arch[1]?.answers).toEqual([
      {
        request: {
          id: "req-1",
          kind: "clarification",
          question: "Who receives the greeting?",
          context: "The issue does not say.",
          choices: ["users", "admins"],
        },
        response: expect.objectContaining({ id: "resp-req-1", answer: "users", actor: "alice" }),
      },
    ]);
    const steps = await h.store.getSteps(run.id);
    expect(steps.map((s) => [s.state, s.attempt])).toEqual([
      ["passed", 2],
      ["passed", 1],
      ["passed", 1],
      ["passed", 1],
    ]);
    // The answer stays in the journal next to both attempts.
    const types = (await h.store.events(run.id)).map((e) => e.type);
    expect(types).toContain("request.answered");
    expect(types.filter((t) => t === "run.resumed")).toHaveLength(1);
  });

  it("respond errors are typed: unknown run, unknown request, answered, not paused, other repo", async () => {
    const { run } = await pausedOnQuestion();
    await expect(h.engine.respond("nope", answer("req-1"))).rejects.toBeInstanceOf(UnknownRunError);
    await expect(h.engine.respond(run.id, answer("req-x"))).rejects.toBeInstanceOf(
      UnknownRequestError,
    );
    await expect(
      h.engine.respond(run.id, { ...answer("req-1"), fromRepo: "mallory/fork" }),
    ).rejects.toBeInstanceOf(RunRepoMismatchError);
    await h.engine.respond(run.id, { ...answer("req-1"), fromRepo: "acme/widgets" });
    await expect(h.engine.respond(run.id, answer("req-1", "resp-2"))).rejects.toBeInstanceOf(
      RequestAlreadyAnsweredError,
    );

    // A question left open on a cancelled run cannot be answered any more.
    runner.on("architect", ask("req-9"));
    const other = await h.engine.startRun(changeRun());
    await h.engine.drive(other.id);
    await h.engine.cancel(other.id, "not needed");
    await expect(h.engine.respond(other.id, answer("req-9"))).rejects.toBeInstanceOf(
      RunNotPausedError,
    );
    await expect(h.engine.resume(other.id)).rejects.toBeInstanceOf(RunNotPausedError);
  });

  it("a worker that repeats an answered question fails instead of looping", async () => {
    runner.on("architect", ask("req-1"), ask("req-1"));
    const run = await h.engine.startRun(changeRun());
    await h.engine.drive(run.id);
    await h.engine.respond(run.id, answer("req-1"));
    await h.engine.resume(run.id);
    expect((await h.engine.settled(run.id))?.state).toBe("failed");
    const [arch] = await h.store.getSteps(run.id);
    expect(arch?.decision?.reasons.join(" ")).toMatch(/already answered/);
  });
});

describe("feedback replay and conflicts (R6.2)", () => {
  it("the same feedback id with different content fails the step and records the refusal", async () => {
    // The engine names a step's feedback by role and attempt; here the journal already holds
    // that id with other content (another writer got there first).
    runner.on("architect", pass);
    const run = await h.engine.startRun(changeRun());
    await h.store.recordFeedback(run.id, {
      id: "architect-attempt-1",
      role: "architect",
      task: "architect",
      attempt: 1,
      disposition: "failed",
      summary: "written by someone else",
      evidence: [],
    });
    await h.engine.drive(run.id);
    expect((await h.engine.settled(run.id))?.state).toBe("failed");
    const [arch] = await h.store.getSteps(run.id);
    expect(arch?.decision?.reasons.join(" ")).toMatch(
      /architect-attempt-1.*same id, different content/,
    );
    expect(arch?.decision?.overridden).toBe(true);
    const refused = (await h.store.events(run.id)).find((e) => e.type === "feedback.refused");
    expect(refused?.data.feedback).toMatchObject({
      id: "architect-attempt-1",
      disposition: "completed",
    });
    expect(await h.store.listFeedback(run.id)).toHaveLength(1);
  });

  it("replaying a feedback that is already journaled changes nothing", async () => {
    const { run } = await pausedOnQuestion();
    const [journaled] = await h.store.listFeedback(run.id);
    const before = await h.store.events(run.id);
    expect(await h.store.recordFeedback(run.id, journaled as never)).toBe("duplicate");
    expect(await h.store.events(run.id)).toEqual(before);
    expect(await h.store.listRequests(run.id)).toHaveLength(1);
  });
});

describe("the request budget (R6.2)", () => {
  it("a new question beyond the budget fails the step, saying the budget is spent", async () => {
    runner.on("architect", ask("req-1"), ask("req-2"));
    const run = await h.engine.startRun(changeRun({ requestBudget: 1 }));
    expect((await h.engine.drive(run.id)).state).toBe("paused");
    await h.engine.respond(run.id, answer("req-1"));
    await h.engine.resume(run.id);
    const done = await h.engine.settled(run.id);
    expect(done?.state).toBe("failed");
    const [arch] = await h.store.getSteps(run.id);
    expect(arch?.state).toBe("failed");
    expect(arch?.decision?.reasons.join(" ")).toMatch(/spent its request budget \(1 of 1/);
    // The refused question is evidence in the log, but never an open request.
    expect((await h.store.listRequests(run.id)).map((r) => r.id)).toEqual(["req-1"]);
    const refused = (await h.store.events(run.id)).find((e) => e.type === "feedback.refused");
    expect(refused?.data.feedback).toMatchObject({ request: { id: "req-2" } });
  });

  it("questions of different steps share the run's budget", async () => {
    runner.on("architect", ask("req-a"));
    runner.on("builder", ask("req-b"));
    const run = await h.engine.startRun(changeRun({ requestBudget: 1 }));
    await h.engine.drive(run.id);
    await h.engine.respond(run.id, answer("req-a"));
    await h.engine.resume(run.id);
    expect((await h.engine.settled(run.id))?.state).toBe("failed");
    const steps = await h.store.getSteps(run.id);
    expect(steps.map((s) => s.state)).toEqual(["passed", "failed", "queued", "queued"]);
  });
});

describe("attempt limit on resume", () => {
  it(`a step blocked at attempt ${MAX_ATTEMPTS} fails on resume instead of running a fifth time`, async () => {
    runner.on("architect", ask("q1"), ask("q2"), ask("q3"));
    const run = await h.engine.startRun(changeRun({ requestBudget: 3 }));
    await h.engine.drive(run.id);
    for (const q of ["q1", "q2"]) {
      await h.engine.respond(run.id, answer(q));
      await h.engine.resume(run.id);
      expect((await h.engine.settled(run.id))?.state).toBe("paused");
    }
    // Attempt 3 asked q3; use the store to put the step at attempt 4 the legal way.
    await h.engine.respond(run.id, answer("q3"));
    await h.store.transition(run.id, {
      run: { state: "running" },
      step: { index: 0, patch: { state: "running", attempt: 4 } },
      events: [{ type: "test.setup", data: {} }],
    });
    await h.store.transition(run.id, {
      run: { state: "paused" },
      step: { index: 0, patch: { state: "blocked" } },
      events: [{ type: "test.setup", data: {} }],
    });
    await h.engine.resume(run.id);
    expect((await h.engine.settled(run.id))?.state).toBe("failed");
    const [arch] = await h.store.getSteps(run.id);
    expect(arch?.decision?.reasons.join(" ")).toMatch(/no attempts left \(4 of 4 used\)/);
    expect(runner.callsFor("architect").map((c) => c.attempt)).toEqual([1, 2, 3]);
  });
});
