// The App never goes silent: a job that fails for any reason answers on the issue or PR with
// what failed and what to do (never a secret); the labeller's permission is asked from the API
// before anything is cloned; a default branch the repository does not have is named.
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { RepoMirrors } from "../../src/app/repo-mirror.js";
import { fake } from "../secrets/fake-secrets.js";
import { type AppKit, createAppKit, FORGE_YML } from "./app-kit.js";
import { commentCreated, issueLabeled } from "./payloads.js";

let kit: AppKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

/** Replies (comments that are not a run's sticky comment) on an issue. */
function replies(k: AppKit, issue = 7): string[] {
  return k.state
    .commentsOn(issue)
    .filter((c) => !c.body.startsWith("<!-- forgechain:run:"))
    .map((c) => c.body);
}

/** Records, for each clone/fetch of the mirror, whether the permission was asked before it. */
function watchClones(k: AppKit): string[] {
  const seen: string[] = [];
  const mirrors: RepoMirrors = k.services.mirrors;
  k.services.mirrors = {
    ...mirrors,
    sync: (request) => {
      const asked = k.gh.requests.some((r) => r.pathname.endsWith("/permission"));
      seen.push(asked ? "clone after permission" : "clone before permission");
      return mirrors.sync(request);
    },
  };
  return seen;
}

describe("a job that fails replies on the issue", () => {
  it("a clone that fails: the reply says the repository could not be fetched and what to do", async () => {
    kit = await createAppKit();
    rmSync(kit.bare, { recursive: true, force: true });
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    const [reply, ...more] = replies(kit);
    expect(more).toEqual([]);
    expect(reply).toContain("could not fetch the repository");
    expect(reply).toContain("What to do");
    expect(reply).toContain("add the label again");
  });

  it("a `/forge run` whose clone fails gets the same kind of answer", async () => {
    kit = await createAppKit();
    rmSync(kit.bare, { recursive: true, force: true });
    await kit.receive("issue_comment", commentCreated({ author: "alice", body: "/forge run" }));
    await kit.settle();
    const all = replies(kit).join("\n");
    expect(all).toContain("could not fetch the repository");
    expect(all).toContain("`/forge run`");
  });

  it("an unexpected error is named, redacted, with what to do; the log has it too", async () => {
    const token = fake.githubToken();
    kit = await createAppKit({
      boxGate: {
        check: async () => {
          throw new Error(`the prover crashed while holding ${token}`);
        },
      },
    });
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    const all = replies(kit).join("\n");
    expect(all).toContain("checking the box proof");
    expect(all).toContain("the prover crashed while holding [REDACTED");
    expect(all).not.toContain(token);
    expect(all).toContain("What to do");
    expect(kit.logger.lines.some((l) => l.level === "error")).toBe(true);
  });

  it("a label that is not forge's gets no reply when the repository cannot be read", async () => {
    kit = await createAppKit();
    rmSync(kit.bare, { recursive: true, force: true });
    await kit.receive("issues", issueLabeled({ sender: "alice", label: "bug" }));
    await kit.settle();
    expect(replies(kit)).toEqual([]);
    expect(kit.logger.lines.some((l) => l.msg === "background job failed")).toBe(true);
  });

  it("a run whose drive fails: its sticky comment and a reply say so, redacted", async () => {
    const key = fake.anthropicKey();
    kit = await createAppKit();
    const engine = kit.services.engine;
    kit.services.engine = {
      ...engine,
      drive: async () => {
        throw new Error(`the journal is locked (ANTHROPIC_API_KEY=${key})`);
      },
    };
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    const [run] = await kit.store.listRuns();
    const sticky = kit.state
      .commentsOn(7)
      .find((c) => c.body.startsWith(`<!-- forgechain:run:${run?.id} -->`));
    expect(sticky?.body).toContain("the journal is locked");
    expect(sticky?.body).toContain(`/forge cancel ${run?.id}`);
    expect(replies(kit).join("\n")).toContain("the journal is locked");
    expect(replies(kit).join("\n")).toContain(`/forge cancel ${run?.id}`);
    const journaled = JSON.stringify(await kit.store.events(run?.id ?? ""));
    for (const text of [sticky?.body, replies(kit).join("\n"), journaled])
      expect(text).not.toContain(key);
  });
});

describe("trust is asked from the API before anything is cloned", () => {
  it("a trusted labeller: the permission first, then the clone", async () => {
    kit = await createAppKit({ permissions: { alice: "write" } });
    const clones = watchClones(kit);
    await kit.receive("issues", issueLabeled({ sender: "alice" }));
    await kit.settle();
    expect(clones).toEqual(["clone after permission"]);
    expect(await kit.store.listRuns()).toHaveLength(1);
  });

  it("the repository's trusted list is read only when the API says no, and then counts", async () => {
    kit = await createAppKit({
      permissions: { dora: "triage" },
      files: { ".github/forge.yml": `${FORGE_YML}trusted: [dora]\n` },
    });
    const clones = watchClones(kit);
    await kit.receive("issues", issueLabeled({ sender: "dora" }));
    await kit.settle();
    expect(clones).toEqual(["clone after permission"]);
    expect(await kit.store.listRuns()).toHaveLength(1);
  });

  it("an untrusted labeller who is on no list: refused after the API said no", async () => {
    kit = await createAppKit({ permissions: { mallory: "triage" } });
    const clones = watchClones(kit);
    await kit.receive("issues", issueLabeled({ sender: "mallory" }));
    await kit.settle();
    expect(clones).toEqual(["clone after permission"]);
    expect(await kit.store.listRuns()).toHaveLength(0);
    expect(replies(kit).join("\n")).toContain("yours: triage");
  });

  it("a login on the deployment's list needs neither the API nor the clone to be trusted", async () => {
    kit = await createAppKit({ permissions: {}, trusted: ["carol"] });
    const clones = watchClones(kit);
    await kit.receive("issues", issueLabeled({ sender: "carol" }));
    await kit.settle();
    expect(kit.gh.requests.some((r) => r.pathname.endsWith("/permission"))).toBe(false);
    expect(clones).toHaveLength(1);
    expect(await kit.store.listRuns()).toHaveLength(1);
  });
});

describe("a default branch the repository does not have", () => {
  it("is named in the reply, with the branches there are and what to do", async () => {
    kit = await createAppKit();
    const payload = issueLabeled({ sender: "alice" });
    (payload.repository as Record<string, unknown>).default_branch = "trunk";
    await kit.receive("issues", payload);
    await kit.settle();
    expect(await kit.store.listRuns()).toHaveLength(0);
    const [reply] = replies(kit);
    expect(reply).toContain("`trunk`");
    expect(reply).toContain("has no branch");
    expect(reply).toContain("`main`");
    expect(reply).toContain("default branch");
    expect(reply).not.toContain("test control");
  });
});
