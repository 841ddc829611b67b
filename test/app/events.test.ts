import { describe, expect, it } from "vitest";
import { parseWebhook } from "../../src/app/events.js";
import {
  checkRerequested,
  commentCreated,
  example,
  issueLabeled,
  pullRequest,
  workflowDispatch,
} from "./payloads.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";

describe("parseWebhook: one typed event per payload", () => {
  it("issues.labeled", () => {
    const ev = parseWebhook("issues", issueLabeled({ sender: "alice", label: "forge" }), "d1");
    expect(ev).toMatchObject({
      kind: "issue-labeled",
      delivery: "d1",
      installationId: 42,
      label: "forge",
      repo: {
        owner: "octo-org",
        name: "widgets",
        fullName: "octo-org/widgets",
        defaultBranch: "main",
      },
      sender: { login: "alice", isBot: false },
      issue: { number: 7, isPullRequest: false },
    });
  });

  it("a workflow's payload names no installation: the Action's events only", () => {
    const payload = issueLabeled({ sender: "alice", label: "forge" }) as Record<string, unknown>;
    delete payload.installation;
    expect(parseWebhook("issues", payload, "d1")).toMatchObject({
      kind: "ignored",
      reason: "issues.labeled: unexpected payload at installation",
    });
    expect(parseWebhook("issues", payload, "d1", { workflow: true })).toMatchObject({
      kind: "issue-labeled",
      installationId: 0,
      label: "forge",
      issue: { number: 7 },
    });
  });

  it("workflow_dispatch names its issue in the `issue` input (the Action only)", () => {
    const dispatch = (issue: unknown) => {
      const payload = workflowDispatch({ sender: "alice", issue });
      delete payload.installation;
      return parseWebhook("workflow_dispatch", payload, "d1", { workflow: true });
    };
    for (const given of ["7", " #7 ", 7]) {
      expect(dispatch(given), String(given)).toMatchObject({
        kind: "dispatch",
        issueNumber: 7,
        installationId: 0,
        sender: { login: "alice", isBot: false },
        repo: { fullName: "octo-org/widgets" },
      });
    }
    for (const [given, shown] of [
      [undefined, "nothing"],
      ["", '""'],
      ["seven", '"seven"'],
      ["7; rm -rf /", '"7; rm -rf /"'],
      [-7, "-7"],
      [0, "0"],
      ["1234567890", '"1234567890"'],
    ] as const) {
      expect(dispatch(given), String(given)).toEqual({
        kind: "ignored",
        delivery: "d1",
        reason: `workflow_dispatch: the \`issue\` input must be the number of the issue to work on (got ${shown})`,
      });
    }
    // A GitHub App is never dispatched: the App ignores the event whatever it holds.
    expect(
      parseWebhook("workflow_dispatch", workflowDispatch({ sender: "alice", issue: "7" }), "d1"),
    ).toMatchObject({ kind: "ignored", reason: "workflow_dispatch is not handled" });
  });

  it("pull_request with the head sha, the base and whether it comes from a fork", () => {
    const ev = parseWebhook(
      "pull_request",
      pullRequest({ action: "synchronize", sender: "bob", headSha: SHA, fork: true }),
      "d2",
    );
    expect(ev).toMatchObject({
      kind: "pull-request",
      action: "synchronize",
      pull: { headSha: SHA, baseRef: "main", fromFork: true },
    });
  });

  it("bots by type or by [bot] suffix", () => {
    const ev = parseWebhook(
      "issue_comment",
      commentCreated({ author: "renovate[bot]", body: "/forge run" }),
      "d3",
    );
    expect(ev.kind === "comment" && ev.comment.author.isBot).toBe(true);
  });

  it("check_run.rerequested carries the external id", () => {
    const ev = parseWebhook(
      "check_run",
      checkRerequested({
        sender: "alice",
        name: "forge/reviewer",
        externalId: "run1",
        headSha: SHA,
      }),
      "d4",
    );
    expect(ev).toMatchObject({
      kind: "check-rerequested",
      check: { name: "forge/reviewer", externalId: "run1", headSha: SHA },
    });
  });

  it("installation events are housekeeping", () => {
    const ev = parseWebhook("installation", example("installation", "created"), "d5");
    expect(ev).toMatchObject({
      kind: "installation",
      action: "installation.created",
      account: "Codertocat",
    });
  });

  it("edited comments, unknown actions and payloads without an installation are ignored", () => {
    const edited = commentCreated({ author: "alice", body: "/forge run" });
    edited.action = "edited";
    expect(parseWebhook("issue_comment", edited, "d6").kind).toBe("ignored");
    expect(
      parseWebhook(
        "pull_request",
        { ...pullRequest({ action: "opened", sender: "a", headSha: SHA }), action: "closed" },
        "d7",
      ).kind,
    ).toBe("ignored");
    const noInstallation = issueLabeled({ sender: "alice" });
    delete noInstallation.installation;
    expect(parseWebhook("issues", noInstallation, "d8")).toMatchObject({
      kind: "ignored",
      reason: expect.stringContaining("installation"),
    });
  });

  it("untrusted text is size-limited once, here", () => {
    const ev = parseWebhook(
      "issues",
      issueLabeled({ sender: "alice", title: "t".repeat(5000), body: "b".repeat(200_000) }),
      "d9",
    );
    expect(ev.kind === "issue-labeled" && [ev.issue.title.length, ev.issue.body.length]).toEqual([
      1024, 65536,
    ]);
  });
});
