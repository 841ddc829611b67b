// R6.4 at the engine-facing side: a seal that is forged, expired, replayed, made for another
// run, or does not cover exactly what would be acted on is a "no" — journaled on the run,
// shown in the sticky comment — and the run stays where it was.
import { afterEach, describe, expect, it } from "vitest";
import type { HumanAnswer, SealedAnswer } from "../../src/app/gatekeeper.js";
import { ask } from "../chain/scripted-runner.js";
import { type AppKit, createAppKit } from "./app-kit.js";
import { commentCreated, FULL, issueLabeled } from "./payloads.js";

let kit: AppKit | null = null;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
afterEach(async () => {
  offsetMs = 0;
  await kit?.close();
  kit = null;
});

async function pausedRuns(k: AppKit, count: number) {
  for (let i = 0; i < count; i++) {
    k.runner.scripted.on("architect", ask(`q${i}`));
    await k.receive("issues", issueLabeled({ sender: "alice", number: 20 + i }));
    await k.settle();
  }
  const runs = await k.store.listRuns();
  for (const r of runs) expect(r.state).toBe("paused");
  return runs;
}

function resume(runId: string, over: Partial<HumanAnswer> = {}): HumanAnswer {
  return { gate: "resume", runId, actor: "alice", repo: FULL, ...over } as HumanAnswer;
}

async function refusals(k: AppKit, runId: string) {
  return (await k.store.events(runId))
    .filter((e) => e.type === "seal.refused")
    .map((e) => e.data.reason);
}

describe("sealed answers (R6.4)", () => {
  it("where no answer can be sealed, every answer is refused with the reason; the run stays paused", async () => {
    const why = "this workflow gives forgechain no gate_secret";
    kit = await createAppKit({ clock, unsealable: why });
    const [run] = await pausedRuns(kit, 1);
    const id = run?.id ?? "";
    const answer = JSON.stringify({ run_id: id, request_id: "q0", answer: "yes" });
    for (const body of [`/forge respond ${answer}`, `/forge resume ${id}`, `/forge cancel ${id}`]) {
      await kit.receive("issue_comment", commentCreated({ author: "alice", number: 20, body }));
      await kit.settle();
    }
    expect(await refusals(kit, id)).toEqual([why, why, why]);
    const replies = kit.state.commentsOn(20).filter((c) => !c.body.startsWith("<!--"));
    expect(replies.map((c) => c.body).join("\n")).toContain(`refused: ${why}`);
    expect((await kit.store.getRun(id))?.state).toBe("paused");
    expect(await kit.store.events(id)).not.toContainEqual(
      expect.objectContaining({ type: "seal.accepted" }),
    );
  });

  it("a forged seal (one MAC character changed) is refused and journaled", async () => {
    kit = await createAppKit({ clock });
    const [run] = await pausedRuns(kit, 1);
    const id = run?.id ?? "";
    const sealed = kit.services.gatekeeper.seal(resume(id));
    const last = sealed.token.at(-2) === "A" ? "B" : "A";
    const forged: SealedAnswer = {
      ...sealed,
      token: `${sealed.token.slice(0, -2)}${last}${sealed.token.at(-1)}`,
    };
    const out = await kit.services.gatekeeper.act(forged);
    expect(out.ok).toBe(false);
    expect(await refusals(kit, id)).toEqual([
      "the seal's signature is wrong (forged or made with another key)",
    ]);
    await kit.settle();
    const sticky = kit.state.commentsOn(20).find((c) => c.body.startsWith("<!--"))?.body ?? "";
    expect(sticky).toContain("Refused answers");
    expect(sticky).toContain("forged or made with another key");
    expect((await kit.store.getRun(id))?.state).toBe("paused");
  });

  it("an expired seal (older than 600 s) is refused", async () => {
    kit = await createAppKit({ clock });
    const [run] = await pausedRuns(kit, 1);
    const id = run?.id ?? "";
    // Answer q0 first so that only the seal can stop the resume.
    await kit.services.gatekeeper.act(
      kit.services.gatekeeper.seal({
        gate: "respond",
        runId: id,
        actor: "alice",
        repo: FULL,
        requestId: "q0",
        answer: "yes",
      }),
    );
    const sealed = kit.services.gatekeeper.seal(resume(id));
    offsetMs = 601_000;
    const out = await kit.services.gatekeeper.act(sealed);
    expect(out).toEqual({ ok: false, message: expect.stringContaining("expired") });
    expect(await refusals(kit, id)).toEqual(["the seal expired (answers are valid for 600 s)"]);
    expect((await kit.store.getRun(id))?.state).toBe("paused");
  });

  it("a replayed seal is refused the second time", async () => {
    kit = await createAppKit({ clock });
    const [run] = await pausedRuns(kit, 1);
    const id = run?.id ?? "";
    const sealed = kit.services.gatekeeper.seal({
      gate: "respond",
      runId: id,
      actor: "alice",
      repo: FULL,
      requestId: "q0",
      answer: "yes",
    });
    expect((await kit.services.gatekeeper.act(sealed)).ok).toBe(true);
    const again = await kit.services.gatekeeper.act(sealed);
    expect(again.ok).toBe(false);
    expect(await refusals(kit, id)).toEqual(["the seal was already used"]);
    expect(await kit.store.listResponses(id)).toHaveLength(1);
  });

  it("a seal for one run does not open another run", async () => {
    kit = await createAppKit({ clock });
    const [a, b] = await pausedRuns(kit, 2);
    const sealedA = kit.services.gatekeeper.seal(resume(a?.id ?? ""));
    const out = await kit.services.gatekeeper.act({
      answer: resume(b?.id ?? ""),
      token: sealedA.token,
    });
    expect(out.ok).toBe(false);
    expect(await refusals(kit, b?.id ?? "")).toEqual(["the seal is for another run"]);
    expect(await refusals(kit, a?.id ?? "")).toEqual([]);
  });

  it("an answer changed after sealing, or given in another repository, does not match the seal", async () => {
    kit = await createAppKit({ clock });
    const [run] = await pausedRuns(kit, 1);
    const id = run?.id ?? "";
    const sealed = kit.services.gatekeeper.seal({
      gate: "respond",
      runId: id,
      actor: "alice",
      repo: FULL,
      requestId: "q0",
      answer: "yes",
    });
    const tampered = { ...sealed, answer: { ...sealed.answer, answer: "rm -rf /" } as HumanAnswer };
    expect((await kit.services.gatekeeper.act(tampered)).ok).toBe(false);
    const foreign = kit.services.gatekeeper.seal({
      gate: "respond",
      runId: id,
      actor: "alice",
      repo: "evil-org/other",
      requestId: "q0",
      answer: "yes",
    });
    expect((await kit.services.gatekeeper.act(foreign)).ok).toBe(false);
    expect(await refusals(kit, id)).toEqual([
      "what the seal covers is not what would be acted on",
      "the answer came from another repository",
    ]);
    expect(await kit.store.listResponses(id)).toHaveLength(0);
  });

  it("a seal of another gate (cancel sealed, resume presented) is refused", async () => {
    kit = await createAppKit({ clock });
    const [run] = await pausedRuns(kit, 1);
    const id = run?.id ?? "";
    const cancel = kit.services.gatekeeper.seal({
      gate: "cancel",
      runId: id,
      actor: "alice",
      repo: FULL,
    });
    const out = await kit.services.gatekeeper.act({ answer: resume(id), token: cancel.token });
    expect(out.ok).toBe(false);
    expect(await refusals(kit, id)).toEqual(["the seal is for another kind of answer"]);
    expect((await kit.store.getRun(id))?.state).toBe("paused");
  });
});
