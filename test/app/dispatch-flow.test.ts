// A workflow_dispatch naming an issue, through the App's own handler (`accept`) with real parts
// behind it (the kit: nock at GitHub's boundary, the real journal and engine): the issue's text
// comes from the API, then it is the change chain a label starts, under the same trust rules.
import { afterEach, describe, expect, it } from "vitest";
import { accept } from "../../src/app/app.js";
import { parseWebhook } from "../../src/app/events.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { type AppKit, createAppKit } from "./app-kit.js";
import { workflowDispatch } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

async function dispatched(k: AppKit, sender: string, issue: unknown) {
  const ev = parseWebhook("workflow_dispatch", workflowDispatch({ sender, issue }), `d-${issue}`, {
    workflow: true,
  });
  expect(ev.kind).toBe("dispatch");
  await accept(ev, k.services);
  await k.settle();
}

describe("workflow_dispatch → the change chain on the named issue", () => {
  it("the issue's title and text, from the API, are the run's task", async () => {
    kit = await createAppKit({ permissions: { alice: "write" } });
    kit.state.issues.set(21, { title: "Greet louder", body: "greet.sh should shout" });
    await dispatched(kit, "alice", "21");
    const [run] = await kit.store.listRuns();
    expect(run?.state).toBe("passed");
    expect(run?.chain).toBe("change");
    expect(run?.task).toMatchObject({ number: 21, title: "Greet louder" });
    expect(run?.task.body).toContain("greet.sh should shout");
    expect(kit.state.commentsOn(21)[0]?.body).toContain(`<!-- forgechain:run:${run?.id} -->`);
    expect(kit.state.pulls).toHaveLength(1);
    for (const r of kit.gh.requests) assertMatchesOpenApi(r);
  });

  it("an untrusted dispatcher: a reply on the issue, nothing runs", async () => {
    kit = await createAppKit({ permissions: { mallory: "read" } });
    kit.state.issues.set(22, { title: "t", body: "b" });
    await dispatched(kit, "mallory", 22);
    expect(await kit.store.listRuns()).toEqual([]);
    expect(
      kit.state
        .commentsOn(22)
        .map((c) => c.body)
        .join("\n"),
    ).toMatch(/@mallory/);
  });

  it("a pull request's number: a reply saying how to review it, nothing runs", async () => {
    kit = await createAppKit({ permissions: { alice: "write" } });
    kit.state.issues.set(23, { title: "a PR", body: "", isPullRequest: true });
    await dispatched(kit, "alice", 23);
    expect(await kit.store.listRuns()).toEqual([]);
    expect(kit.state.commentsOn(23)[0]?.body).toMatch(/is a pull request.*forge:review/s);
  });

  it("no such issue: an error in the log naming it, nothing runs, no reply anywhere", async () => {
    kit = await createAppKit({ permissions: { alice: "write" } });
    await dispatched(kit, "alice", 404);
    expect(await kit.store.listRuns()).toEqual([]);
    expect(kit.state.comments).toEqual([]);
    const errors = kit.logger.lines.filter((l) => l.level === "error").map((l) => l.msg);
    expect(errors.join("\n")).toContain("there is no issue #404 in octo-org/widgets");
  });
});
