import { afterEach, describe, expect, it } from "vitest";
import { gate } from "../chain/scripted-runner.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { type AppKit, createAppKit, FORGE_YML } from "./app-kit.js";
import { checkRerequested, commentCreated, pullRequest } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

describe("pull_request → review chain", () => {
  it("the review label reviews the PR head: live checks queued → in_progress → completed, then the gate", async () => {
    kit = await createAppKit();
    const head = await kit.pushBranch("feature", { "greet.sh": "echo hi\n" });
    await kit.receive(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: head }),
    );
    await kit.settle();
    const [run] = await kit.store.listRuns();
    expect(run?.chain).toBe("review");
    expect(run?.state).toBe("passed");
    expect(run?.repo.headRef).toBe(head);
    const checks = kit.state.checksFor(head);
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName["forge/reviewer"]?.history).toEqual([
      "queued",
      "in_progress",
      "completed:success",
    ]);
    expect(byName["forge/security"]?.history).toEqual([
      "queued",
      "in_progress",
      "completed:success",
    ]);
    expect(byName["forge/gate"]?.conclusion).toBe("success");
    expect(kit.state.pulls).toHaveLength(0); // a review opens no PR
    expect(kit.state.commentsOn(12)[0]?.body).toContain(`forgechain:run:${run?.id}`);
    for (const r of kit.gh.requests) assertMatchesOpenApi(r);
  });

  it("a new head cancels the running review of the old head; its checks end cancelled", async () => {
    kit = await createAppKit();
    const first = await kit.pushBranch("feature", { "greet.sh": "echo one\n" });
    const hold = gate();
    kit.runner.scripted.on("reviewer", hold.script);
    await kit.receive(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: first }),
    );
    await hold.started;
    const second = await kit.pushBranch("feature", { "greet.sh": "echo two\n" });
    await kit.receive(
      "pull_request",
      pullRequest({
        action: "synchronize",
        sender: "alice",
        headSha: second,
        labels: ["forge:review"],
      }),
    );
    await kit.settle();
    const runs = await kit.store.listRuns();
    const old = runs.find((r) => r.repo.headRef === first);
    const next = runs.find((r) => r.repo.headRef === second);
    expect(old?.state).toBe("cancelled");
    expect(next?.state).toBe("passed");
    const cancelled = await kit.store.events(old?.id ?? "");
    expect(cancelled.find((e) => e.type === "run.cancelled")?.data.reason).toMatch(
      /^superseded by the new head/,
    );
    for (const c of kit.state.checksFor(first)) expect(c.conclusion).toBe("cancelled");
    // The superseded head gets no gate; the new head does.
    expect(kit.state.checksFor(first).some((c) => c.name === "forge/gate")).toBe(false);
    expect(kit.state.checksFor(second).find((c) => c.name === "forge/gate")?.conclusion).toBe(
      "success",
    );
  });

  it("a pull request from a fork is refused with a reply; nothing runs, nobody is asked", async () => {
    kit = await createAppKit();
    const head = await kit.pushBranch("feature", { "x.txt": "x\n" });
    await kit.receive(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: head, fork: true }),
    );
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    expect(kit.state.commentsOn(12)[0]?.body).toContain("does not review pull requests from forks");
    expect(kit.gh.requests.some((r) => r.pathname.includes("/collaborators/"))).toBe(false);
  });

  it("opened starts a review only when the repository configures it", async () => {
    kit = await createAppKit();
    const head = await kit.pushBranch("feature", { "x.txt": "x\n" });
    await kit.receive(
      "pull_request",
      pullRequest({ action: "opened", sender: "alice", headSha: head }),
    );
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    await kit.close();
    kit = await createAppKit({
      files: { ".github/forge.yml": `${FORGE_YML}chains:\n  review:\n    events: [opened]\n` },
    });
    const head2 = await kit.pushBranch("feature", { "x.txt": "x\n" });
    await kit.receive(
      "pull_request",
      pullRequest({ action: "opened", sender: "alice", headSha: head2 }),
    );
    await kit.settle();
    expect((await kit.store.listRuns()).map((r) => r.chain)).toEqual(["review"]);
  });

  it("a protected path closes the gate and turns auto-merge off; a sealed /forge approve opens it", async () => {
    kit = await createAppKit({ permissions: { alice: "write", mallory: "read" } });
    const head = await kit.pushBranch("feature", { ".github/workflows/ci.yml": "on: push\n" });
    await kit.receive(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: head }),
    );
    await kit.settle();
    const [run] = await kit.store.listRuns();
    const gates = () => kit?.state.checksFor(head).filter((c) => c.name === "forge/gate") ?? [];
    expect(run?.state).toBe("passed");
    expect(gates()).toHaveLength(1);
    expect(gates()[0]?.conclusion).toBe("failure");
    expect(gates()[0]?.summary).toContain(".github/workflows/ci.yml");
    expect(kit.state.graphql.some((g) => g.query.includes("disablePullRequestAutoMerge"))).toBe(
      true,
    );
    const sticky = () =>
      kit?.state.commentsOn(12).find((c) => c.body.startsWith("<!--"))?.body ?? "";
    expect(sticky()).toContain(`/forge approve ${run?.id}`);

    await kit.receive(
      "issue_comment",
      commentCreated({ author: "mallory", body: "/forge approve", number: 12, onPull: true }),
    );
    await kit.settle();
    expect(gates()).toHaveLength(1);

    await kit.receive(
      "issue_comment",
      commentCreated({ author: "alice", body: "/forge approve", number: 12, onPull: true }),
    );
    await kit.settle();
    expect(gates()).toHaveLength(2);
    expect(gates()[1]?.conclusion).toBe("success");
    expect(gates()[1]?.summary).toContain("approved by @alice (sealed)");
    const events = await kit.store.events(run?.id ?? "");
    expect(events.filter((e) => e.type === "gate.approved")).toHaveLength(1);
    expect(events.filter((e) => e.type === "seal.accepted").map((e) => e.data.gate)).toEqual([
      "approve",
    ]);
    for (const r of kit.gh.requests) assertMatchesOpenApi(r);
  });

  it("check_run.rerequested starts a new run of the whole chain on the same head, and says so", async () => {
    kit = await createAppKit();
    const head = await kit.pushBranch("feature", { "greet.sh": "echo hi\n" });
    await kit.receive(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: head }),
    );
    await kit.settle();
    const [first] = await kit.store.listRuns();
    await kit.receive(
      "check_run",
      checkRerequested({
        sender: "alice",
        name: "forge/security",
        externalId: first?.id ?? "",
        headSha: head,
      }),
    );
    await kit.settle();
    const runs = await kit.store.listRuns();
    expect(runs).toHaveLength(2);
    expect(runs[1]?.repo.headRef).toBe(head);
    const said = kit.state
      .commentsOn(12)
      .map((c) => c.body)
      .join("\n");
    expect(said).toContain(`started run \`${runs[1]?.id}\` of the whole review chain`);
    expect(said).toContain("does not re-run one step of a finished chain");
    // A run id from nowhere is ignored.
    await kit.receive(
      "check_run",
      checkRerequested({
        sender: "alice",
        name: "forge/security",
        externalId: "nope",
        headSha: head,
      }),
    );
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(2);
  });
});
