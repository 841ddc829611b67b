import { afterEach, describe, expect, it } from "vitest";
import { RecentDeliveries } from "../../src/app/app.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { type AppKit, createAppKit, FORGE_YML } from "./app-kit.js";
import { commentCreated, issueLabeled } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

function everyRequestDocumented(k: AppKit) {
  expect(k.gh.requests.length).toBeGreaterThan(0);
  for (const r of k.gh.requests) assertMatchesOpenApi(r);
}

describe("issues.labeled → change chain", () => {
  it("a trusted labeller starts the chain; checks, sticky comment, draft PR and gate follow", async () => {
    kit = await createAppKit({ permissions: { alice: "write" } });
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();

    const runs = await kit.store.listRuns();
    expect(runs).toHaveLength(1);
    const run = runs[0];
    expect(run?.state).toBe("passed");
    expect(run?.repo.remote).toBe(kit.bare);
    expect(kit.runner.scripted.calls.map((c) => c.role)).toEqual([
      "architect",
      "builder",
      "reviewer",
      "security",
    ]);

    const sticky = kit.state.commentsOn(7);
    expect(sticky).toHaveLength(1);
    expect(sticky[0]?.body).toContain(`<!-- forgechain:run:${run?.id} -->`);
    expect(sticky[0]?.body).toContain("✅ passed");
    expect(sticky[0]?.edits).toBeGreaterThan(0);

    expect(kit.state.pulls).toHaveLength(1);
    const pr = kit.state.pulls[0];
    expect(pr?.draft).toBe(true);
    expect(pr?.head).toBe(run?.branch);
    expect(pr?.body).toContain("Closes #7");
    expect(pr?.body).toContain("This is a claim");

    const head = (await kit.store.events(run?.id ?? "")).find((e) => e.type === "run.finished")
      ?.data.headSha as string;
    const checks = kit.state.checksFor(head);
    expect(checks.map((c) => c.name).sort()).toEqual([
      "forge/architect",
      "forge/builder",
      "forge/gate",
      "forge/reviewer",
      "forge/security",
    ]);
    for (const c of checks) expect(c.conclusion).toBe("success");
    expect(checks.find((c) => c.name === "forge/builder")?.history).toEqual([
      "queued",
      "completed:success",
    ]);
    everyRequestDocumented(kit);
  });

  it("an untrusted labeller (read) gets a short reply and no run", async () => {
    kit = await createAppKit({ permissions: { mallory: "read" } });
    await kit.receive("issues", issueLabeled({ sender: "mallory" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    const replies = kit.state.commentsOn(7);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toContain("write, maintain or admin");
    expect(replies[0]?.body).toContain("yours: read");
    const asked = kit.gh.requests.filter((r) =>
      r.pathname.endsWith("/collaborators/mallory/permission"),
    );
    expect(asked).toHaveLength(1);
    everyRequestDocumented(kit);
  });

  it("a login on the deployment's trusted list needs no permission", async () => {
    kit = await createAppKit({ permissions: {}, trusted: ["Carol"] });
    await kit.receive("issues", issueLabeled({ sender: "carol" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(1);
    expect(kit.gh.requests.some((r) => r.pathname.includes("/collaborators/"))).toBe(false);
  });

  it("another label is not a trigger: no run, no reply — only the permission was asked", async () => {
    // The permission comes first, before anything is cloned; which labels trigger is in the
    // repository's config, read after it.
    kit = await createAppKit({ permissions: { mallory: "read" } });
    await kit.receive("issues", issueLabeled({ sender: "mallory", label: "bug" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    expect(kit.gh.requests.map((r) => `${r.method} ${r.pathname}`)).toEqual([
      "GET /repos/octo-org/widgets/collaborators/mallory/permission",
    ]);
  });

  it("the repository's configured label replaces the default", async () => {
    kit = await createAppKit({
      files: { ".github/forge.yml": `${FORGE_YML}labels:\n  change: agents-please\n` },
    });
    await kit.receive("issues", issueLabeled({ sender: "alice", label: "forge" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    await kit.receive("issues", issueLabeled({ sender: "alice", label: "agents-please" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(1);
  });

  it("a bot's label and a bot's comment are ignored before anything is journaled", async () => {
    kit = await createAppKit({ permissions: { "forgechain[bot]": "admin" } });
    const id = await kit.receive("issues", issueLabeled({ sender: "forgechain[bot]" }));
    await kit.receive(
      "issue_comment",
      commentCreated({ author: "other-app[bot]", body: "/forge run" }),
    );
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    expect(kit.gh.requests).toHaveLength(0);
    // Not even the delivery was recorded: a bot's event is dropped before the journal.
    expect(await kit.store.markDelivery(id)).toBe(true);
  });

  it("a redelivered delivery (same X-GitHub-Delivery) does nothing the second time", async () => {
    kit = await createAppKit();
    const payload = issueLabeled({ sender: "alice" });
    await kit.receive("issues", payload, "same-delivery-id");
    await kit.settle();
    const requests = kit.gh.requests.length;
    await kit.receive("issues", payload, "same-delivery-id");
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(1);
    expect(kit.gh.requests.length).toBe(requests);
    expect(kit.logger.lines.some((l) => l.msg?.includes("redelivered"))).toBe(true);
    // After a restart (nothing in memory) the journal still knows the delivery.
    kit.services.deliveries = new RecentDeliveries();
    await kit.receive("issues", payload, "same-delivery-id");
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(1);
    expect(kit.gh.requests.length).toBe(requests);
  });

  it("a second label while a change run is active is refused with the run's id", async () => {
    kit = await createAppKit();
    const gate = (await import("../chain/scripted-runner.js")).gate();
    kit.runner.scripted.on("architect", gate.script);
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await gate.started;
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.services.queue.drain();
    const [run] = await kit.store.listRuns();
    gate.release();
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(1);
    const replies = kit.state.commentsOn(7).filter((c) => !c.body.startsWith("<!--"));
    expect(replies.map((c) => c.body).join("\n")).toContain(
      `run \`${run?.id}\` is already working on this issue`,
    );
  });

  it("a box without a valid proof is refused with the reason", async () => {
    kit = await createAppKit({
      boxGate: { check: async () => "box proof is stale: harness changed" },
    });
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    expect(kit.state.commentsOn(7)[0]?.body).toContain("box proof is stale: harness changed");
  });

  it("an invalid .github/forge.yml is refused with its issues, before anything runs", async () => {
    kit = await createAppKit({ files: { ".github/forge.yml": "labels: [not, a, map]\n" } });
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    expect(kit.state.commentsOn(7)[0]?.body).toContain(".github/forge.yml");
  });
});
