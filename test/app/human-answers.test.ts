import { afterEach, describe, expect, it } from "vitest";
import { ask } from "../chain/scripted-runner.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { type AppKit, createAppKit } from "./app-kit.js";
import { commentCreated, issueLabeled } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

/** Replies (not the sticky comment) on the issue, in order. */
const replies = (k: AppKit, issue = 7) =>
  k.state
    .commentsOn(issue)
    .filter((c) => !c.body.startsWith("<!-- forgechain:run:"))
    .map((c) => c.body);

async function say(
  k: AppKit,
  body: string,
  author = "alice",
  extra: Partial<Parameters<typeof commentCreated>[0]> = {},
) {
  await k.receive("issue_comment", commentCreated({ author, body, ...extra }));
  await k.settle();
  return replies(k).at(-1) ?? "";
}

async function pausedRun(k: AppKit) {
  k.runner.scripted.on("architect", ask("q1"));
  await k.receive("issues", issueLabeled({ sender: "alice" }));
  await k.settle();
  const [run] = await k.store.listRuns();
  if (!run) throw new Error("no run");
  expect(run.state).toBe("paused");
  return run;
}

const respond = (runId: string, answer = "the users", requestId = "q1") =>
  `/forge respond ${JSON.stringify({ run_id: runId, request_id: requestId, answer })}`;

describe("/forge respond and /forge resume (R6.3, R6.4)", () => {
  it("a question pauses the run; respond records the answer, resume continues to PASS", async () => {
    kit = await createAppKit();
    const run = await pausedRun(kit);
    const sticky = () =>
      kit?.state.commentsOn(7).find((c) => c.body.startsWith("<!--"))?.body ?? "";
    expect(sticky()).toContain("Who receives the greeting?");
    expect(sticky()).toContain(`"request_id":"q1"`);

    expect(await say(kit, `/forge resume ${run.id}`)).toContain("waits for an answer to q1");
    expect((await kit.store.getRun(run.id))?.state).toBe("paused");

    expect(await say(kit, respond(run.id))).toContain("answer to `q1` recorded");
    expect((await kit.store.getRun(run.id))?.state).toBe("paused");
    expect(await say(kit, respond(run.id, "again"))).toContain("already answered");

    expect(await say(kit, "/forge resume")).toContain(`run \`${run.id}\` continues`);
    expect((await kit.store.getRun(run.id))?.state).toBe("passed");
    const architect = kit.runner.scripted.callsFor("architect");
    expect(architect.at(-1)?.answers[0]?.response.answer).toBe("the users");
    expect(architect.at(-1)?.answers[0]?.response.actor).toBe("alice");
    const gates = (await kit.store.events(run.id))
      .filter((e) => e.type === "seal.accepted")
      .map((e) => e.data.gate);
    expect(gates).toEqual(["respond", "resume"]);
    for (const r of kit.gh.requests) assertMatchesOpenApi(r);
  });

  it("malformed JSON, an unknown run, an unknown request: a clear reply, nothing changed", async () => {
    kit = await createAppKit();
    const run = await pausedRun(kit);
    const before = (await kit.store.events(run.id)).length;
    expect(await say(kit, '/forge respond {"run_id": oops}')).toContain("is not valid JSON");
    expect(await say(kit, respond("nosuchrun0001"))).toContain("there is no run `nosuchrun0001`");
    expect(await say(kit, respond(run.id, "x", "q9"))).toContain(`has no request q9`);
    expect(await kit.store.listResponses(run.id)).toHaveLength(0);
    // Only the accepted-nothing: no response, no state change; the seal of the q9 answer
    // verified (its fields were what would be acted on), the engine then refused it.
    const after = await kit.store.events(run.id);
    expect(
      after.slice(before).filter((e) => e.type.startsWith("response") || e.type.startsWith("run.")),
    ).toEqual([]);
    expect((await kit.store.getRun(run.id))?.state).toBe("paused");
  });

  it("a run of another repository cannot be answered from here", async () => {
    kit = await createAppKit();
    const run = await pausedRun(kit);
    const before = (await kit.store.events(run.id)).length;
    await kit.receive(
      "issue_comment",
      commentCreated({
        author: "alice",
        body: respond(run.id),
        number: 3,
        repo: { owner: "evil-org", name: "other" },
      }),
    );
    await kit.settle();
    expect(kit.state.commentsOn(3).at(-1)?.body).toContain("belongs to another repository");
    expect(await kit.store.listResponses(run.id)).toHaveLength(0);
    expect(await kit.store.events(run.id)).toHaveLength(before);
  });

  it("an untrusted commenter gets a refusal; nothing is sealed or recorded", async () => {
    kit = await createAppKit({ permissions: { alice: "write", mallory: "triage" } });
    const run = await pausedRun(kit);
    const before = (await kit.store.events(run.id)).length;
    expect(await say(kit, respond(run.id), "mallory")).toContain("yours: triage");
    expect(await say(kit, `/forge cancel ${run.id}`, "mallory")).toContain(
      "write, maintain or admin",
    );
    expect(await kit.store.events(run.id)).toHaveLength(before);
    expect((await kit.store.getRun(run.id))?.state).toBe("paused");
  });

  it("/forge cancel cancels; /forge status shows the run", async () => {
    kit = await createAppKit();
    const run = await pausedRun(kit);
    expect(await say(kit, "/forge status")).toContain(`Run \`${run.id}\``);
    expect(await say(kit, "/forge cancel")).toContain("is cancelled");
    expect((await kit.store.getRun(run.id))?.state).toBe("cancelled");
    const cancel = (await kit.store.events(run.id)).find((e) => e.type === "run.cancelled");
    expect(cancel?.data.reason).toBe("cancelled by @alice with /forge cancel");
  });
});

describe("comment parsing at the app's door (R1.3)", () => {
  it("help and unknown commands get the help text", async () => {
    kit = await createAppKit();
    expect(await say(kit, "/forge help")).toContain("**forgechain commands**");
    expect(await say(kit, "/forge frobnicate")).toContain('unknown command "frobnicate"');
  });

  it("a /forge line inside a code block or quote is ignored, and so is an edited comment", async () => {
    kit = await createAppKit();
    await say(kit, "```\n/forge run\n```");
    await say(kit, "> /forge run");
    const edited = commentCreated({ author: "alice", body: "/forge run" });
    edited.action = "edited";
    await kit.receive("issue_comment", edited);
    await kit.settle();
    expect(kit.gh.requests).toHaveLength(0);
    expect(await kit.store.listRuns()).toHaveLength(0);
  });

  it("a 1 MB comment is refused without being parsed; a big non-command gets no reply", async () => {
    kit = await createAppKit();
    const reply = await say(
      kit,
      `/forge respond {"run_id":"a","request_id":"b","answer":"${"x".repeat(1_000_000)}"}`,
    );
    expect(reply).toContain("larger than 64 KiB");
    expect(kit.gh.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    await say(kit, `just a long comment ${"y".repeat(1_000_000)}`);
    expect(kit.gh.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("/forge run on an issue starts the change chain", async () => {
    kit = await createAppKit();
    const reply = await say(kit, "/forge run");
    const [run] = await kit.store.listRuns();
    expect(reply).toContain(`started run \`${run?.id}\``);
    expect(run?.state).toBe("passed");
  });
});

describe("command replies, as the Action hears them", () => {
  it("each reply is told with whether it refused: help and a recorded answer do not; already answered, malformed, untrusted do", async () => {
    kit = await createAppKit({ permissions: { alice: "write", mallory: "triage" } });
    const heard: Array<{ text: string; refused: boolean }> = [];
    kit.services.commandReplies = (r) => heard.push(r);
    const run = await pausedRun(kit);
    const answer = JSON.stringify({ run_id: run.id, request_id: "q1", answer: "the users" });
    await say(kit, "/forge help");
    await say(kit, `/forge respond ${answer}`);
    await say(kit, `/forge respond ${answer}`);
    await say(kit, "/forge respond {not json");
    await say(kit, "/forge status", "mallory");
    expect(heard.map((r) => r.refused)).toEqual([false, false, true, true, true]);
    expect(heard[2]?.text).toMatch(/already answered/);
  });
});
