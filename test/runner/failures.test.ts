// Fail-closed behaviour of the real runner: the real claude binary, real bwrap boxes, real git.
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StepRecord } from "../../src/chain/types.js";
import { demoScript } from "../../src/demo/demo-script.js";
import type { Script, Turn } from "../../src/scripted-model/server.js";
import { gitIn, makeRepo, tempDir } from "../helpers/git-repo.js";
import {
  chainFixture,
  type FixtureOptions,
  runScripted,
  startChain,
  useModelServer,
  withRole,
} from "./chain-helpers.js";

const server = useModelServer();

const SUMMARY = "A summary long enough for the schema. ".repeat(8);

const runChain = (
  script: Script,
  fixture: FixtureOptions = {},
  mutate?: (content: Record<string, unknown>) => void,
) => runScripted(server, script, fixture, mutate);

/**
 * Deny rules have had enforcement bugs (R4.1): simulate one by freezing the reviewer's
 * settings without the `--output` deny.
 */
function dropOutputDeny(content: Record<string, unknown>): void {
  const roles = content.roles as Record<string, { settings: { permissions: { deny: string[] } } }>;
  const perms = roles.reviewer?.settings.permissions;
  if (perms) perms.deny = perms.deny.filter((rule) => !rule.includes("--output"));
}

/**
 * A builder that writes tests/test.sh (which the base's verify.sh and `make test` run), runs
 * `make test` itself when asked (so the script runs before the runner commits), then PASSes.
 */
function builderWritesTestSh(testSh: string, opts: { runMake?: boolean } = {}): Script {
  const evidence = opts.runMake ? "make test" : "sh scripts/verify.sh";
  return withRole("builder", [
    { tools: [{ name: "Write", input: { file_path: "tests/test.sh", content: testSh } }] },
    ...(opts.runMake ? [{ tools: [{ name: "Bash", input: { command: "make test" } }] }] : []),
    {
      structured: {
        verdict: "PASS",
        summary: SUMMARY,
        evidence: [{ command: evidence, exit_code: 0, output: "" }],
      },
    },
  ]);
}

/** A file outside every workspace, for a test to check the runner never wrote through to it. */
function victimFile(): { victim: string; cleanup: () => void } {
  const outside = tempDir("forge-outside-");
  const victim = join(outside.dir, "victim");
  writeFileSync(victim, "untouched\n");
  return { victim, cleanup: outside.cleanup };
}

/** Another repository on this machine, whose objects a workspace could borrow. */
function otherRepo(): { objects: string; cleanup: () => void } {
  const other = tempDir("forge-other-repo-");
  makeRepo(other.dir, { "private.txt": "another repository's content\n" });
  return { objects: join(other.dir, ".git", "objects"), cleanup: other.cleanup };
}

/**
 * The builder FAILed for `reason`, the run failed, and nothing of the builder's reached the
 * remote: no forge/ branch, or one that holds only the run output on top of the base.
 */
function expectBuilderRefused(
  r: { final: { state: string }; status: { steps: StepRecord[] }; f: { repo: string } },
  reason: string,
): void {
  const builder = r.status.steps.find((s) => s.role === "builder");
  expect(builder?.state).toBe("failed");
  expect(builder?.decision?.reasons.join(" ")).toContain(reason);
  expect(r.final.state).toBe("failed");
  for (const branch of gitIn(r.f.repo, "branch", "--list", "--format=%(refname:short)", "forge/*")
    .split("\n")
    .filter(Boolean)) {
    const changed = gitIn(r.f.repo, "diff", "--name-only", `main...${branch}`).trim().split("\n");
    expect(changed.every((file) => file.startsWith(".forge/run-output-"))).toBe(true);
  }
}

describe("write detection (R4.5)", () => {
  it("FAILs a reviewer that writes through an allowed command, names the file and discards it", async () => {
    // The worktree box (FORGE_OWN_WORK) has no read-only mount: write detection is the layer.
    const { f, final, status, events } = await runChain(
      withRole("reviewer", [
        {
          tools: [
            { name: "Bash", input: { command: "git diff HEAD~1 --output=review-notes.txt" } },
          ],
        },
        { structured: { verdict: "PASS", summary: SUMMARY, findings: [] } },
      ]),
      // The worktree box (FORGE_OWN_WORK) has no read-only mount: write detection is the layer.
      { box: "worktree" },
      dropOutputDeny,
    );
    try {
      const diffCall = server.toolResults.find((r) =>
        String(r.input?.command).includes("--output"),
      );
      expect(diffCall?.isError, diffCall?.content).toBe(false);
      const reviewer = status.steps.find((s) => s.role === "reviewer");
      expect(reviewer?.state).toBe("failed");
      expect(reviewer?.decision?.reasons.join(" ")).toMatch(
        /step reviewer wrote to the tree: review-notes\.txt/,
      );
      expect(final.state).toBe("failed");
      expect(status.steps.find((s) => s.role === "security")?.state).toBe("queued");
      const wrote = events.find((e) => e.type === "runner.step.wrote");
      expect(wrote?.data.files).toEqual(["review-notes.txt"]);
      // The reviewer's workspace was its own: nothing of it is used again or pushed.
      expect(gitIn(f.repo, "log", "--all", "--name-only", "--format=")).not.toContain(
        "review-notes.txt",
      );
    } finally {
      await f.cleanup();
    }
  });

  it("in a bwrap box the read-only repository refuses the same write outright", async () => {
    // Same missing settings deny, but the bwrap box mounts the reviewer's repository read-only.
    const { f, status } = await runChain(
      withRole("reviewer", [
        {
          tools: [
            { name: "Bash", input: { command: "git diff HEAD~1 --output=review-notes.txt" } },
          ],
        },
        { structured: { verdict: "PASS", summary: SUMMARY, findings: [] } },
      ]),
      {},
      dropOutputDeny,
    );
    try {
      const result = server.toolResults.find((r) => String(r.input?.command).includes("--output"));
      expect(result?.content).toMatch(/Read-only file system/);
      const repo = join(f.forgeHome, "work", status.run.id, "repo");
      expect(existsSync(join(repo, "review-notes.txt"))).toBe(false);
    } finally {
      await f.cleanup();
    }
  });
});

describe("verify from the base commit (R2.6)", () => {
  it("FAILs a builder whose verify fails after it stopped, even when it rewrote verify.sh", async () => {
    const { f, status, events } = await runChain(
      withRole("builder", [
        {
          tools: [
            {
              name: "Write",
              input: { file_path: "scripts/verify.sh", content: "#!/bin/sh\nexit 0\n" },
            },
          ],
        },
        {
          structured: {
            verdict: "PASS",
            summary: SUMMARY,
            evidence: [{ command: "sh scripts/verify.sh", exit_code: 0, output: "" }],
          },
        },
      ]),
      {
        setupRepo: (repo) => {
          writeFileSync(
            join(repo, "scripts", "verify.sh"),
            "#!/bin/sh\necho 'DONE file missing'\ntest -f DONE\n",
          );
          gitIn(repo, "commit", "-qam", "verify needs DONE");
        },
      },
    );
    try {
      const builder = status.steps.find((s) => s.role === "builder");
      expect(builder?.state).toBe("failed");
      expect(builder?.decision?.reasons.join(" ")).toMatch(
        /scripts\/verify\.sh \(from base [0-9a-f]{12}\) failed after the builder stopped/,
      );
      // Measured with claude 2.1.332: a valid StructuredOutput call ends the session without
      // the Stop hook getting a say, so this re-check after exit is the gate that holds.
      const verifyEvent = events.find((e) => e.type === "verify.finished");
      expect(verifyEvent?.data.ok).toBe(false);
      expect(status.steps.find((s) => s.role === "reviewer")?.state).toBe("queued");
      // The reviewer's agent was warm-started beside the builder; it never got a prompt.
      const warm = events.find(
        (e) => e.type === "runner.step.prepared" && e.data.role === "reviewer",
      );
      expect(warm).toBeUndefined();
      expect(server.mainRequests().some((r) => r.route === 2)).toBe(false);
    } finally {
      await f.cleanup();
    }
  });
});

describe("the runner's verify runs boxed (R2.6, R2.5, R7.1)", () => {
  it("runs verify.sh again in the builder's box: the builder's test code reaches neither the host nor the runner's environment", async () => {
    // Outside the workspace and under /tmp: the box has a /tmp of its own, the host does not.
    const outside = tempDir("forge-outside-");
    const marker = join(outside.dir, "escaped-from-verify");
    const hostSecret = "forge-test-host-value-not-a-real-token";
    process.env.FORGE_TEST_HOST_ONLY = hostSecret;
    const testSh = [
      "#!/bin/sh",
      `touch '${marker}' 2>/dev/null && echo 'wrote outside' || echo 'could not write outside'`,
      // A shell expansion, not a template placeholder.
      `echo "host value: $\{FORGE_TEST_HOST_ONLY:-absent}"`,
      "exit 0",
      "",
    ].join("\n");
    const { f, status, events } = await runChain(builderWritesTestSh(testSh)).finally(() => {
      delete process.env.FORGE_TEST_HOST_ONLY;
    });
    try {
      const verify = events.find((e) => e.type === "verify.finished");
      expect(verify?.data.ok).toBe(true);
      expect(String(verify?.data.output)).toContain("could not write outside");
      expect(String(verify?.data.output)).toContain("host value: absent");
      expect(JSON.stringify(events)).not.toContain(hostSecret);
      expect(existsSync(marker)).toBe(false);
      expect(status.steps.find((s) => s.role === "builder")?.state).toBe("passed");
    } finally {
      outside.cleanup();
      await f.cleanup();
    }
  });
});

describe("the workspace's git config stays the runner's (R2.5, R7.1)", () => {
  it("code the builder runs cannot plant git config that the runner's own git would execute", async () => {
    const outside = tempDir("forge-outside-");
    const marker = join(outside.dir, "ran-on-the-host");
    // core.fsmonitor names a command git runs on `git status`; the runner snapshots and
    // commits with git on the host after the builder's box ended.
    const testSh = [
      "#!/bin/sh",
      `git config core.fsmonitor "touch '${marker}'" && echo 'config written' || echo 'config is read-only'`,
      "exit 0",
      "",
    ].join("\n");
    const { f, status, events } = await runChain(builderWritesTestSh(testSh));
    try {
      const verify = events.find((e) => e.type === "verify.finished");
      expect(String(verify?.data.output)).toContain("config is read-only");
      expect(status.steps.map((s) => s.state)).toEqual(["passed", "passed", "passed", "passed"]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      outside.cleanup();
      await f.cleanup();
    }
  });
});

describe("nothing the builder plants in .git acts on the host (R4.7)", () => {
  it("a link the builder's code plants in .git is never written through on the host", async () => {
    // `git commit` writes the message to .git/COMMIT_EDITMSG by a plain open. The runner's git
    // never runs in the builder's workspace: the commit runs in the builder's box, where the
    // link's target does not exist, so the builder's own work cannot be read and it FAILs.
    const { victim, cleanup } = victimFile();
    const testSh = `#!/bin/sh\nln -sf '${victim}' .git/COMMIT_EDITMSG && echo linked\nexit 0\n`;
    const r = await runChain(builderWritesTestSh(testSh));
    try {
      expect(readFileSync(victim, "utf8")).toBe("untouched\n");
      expectBuilderRefused(r, "the builder's work could not be read from its workspace");
    } finally {
      cleanup();
      await r.f.cleanup();
    }
  });

  it("a link planted before a question is gone when the answer re-attempts: a fresh workspace", async () => {
    const { victim, cleanup } = victimFile();
    const testSh = `#!/bin/sh\nln -sf '${victim}' .git/logs/HEAD && echo linked\nexit 0\n`;
    const ask: Turn = {
      structured: {
        verdict: "FAIL",
        summary: SUMMARY,
        evidence: [{ command: "sh scripts/verify.sh", exit_code: 0, output: "" }],
        request: {
          id: "which-greeting",
          kind: "clarification",
          question: "Exclamation mark or a full stop?",
          context: "The plan leaves it open.",
        },
      },
    };
    const base = demoScript();
    const builderRoute = base.routes?.find((r) => r.marker === "forgechain step: builder");
    server.setScript({
      ...base,
      routes: [
        // The re-attempt does the demo builder's work: its commit runs in a new workspace.
        { marker: "Answers to your earlier questions", turns: builderRoute?.turns ?? [] },
        ...(withRole(
          "builder",
          [
            {
              tools: [{ name: "Write", input: { file_path: "tests/test.sh", content: testSh } }],
            },
            { tools: [{ name: "Bash", input: { command: "make test" } }] },
            ask,
          ],
          base,
        ).routes ?? []),
      ],
    });
    server.reset();
    const f = await chainFixture({ server });
    try {
      const run = await startChain(f);
      expect((await f.stack.engine.drive(run.id)).state).toBe("paused");
      await f.stack.engine.respond(run.id, {
        requestId: "which-greeting",
        answer: "An exclamation mark.",
        actor: "maintainer",
        responseId: "response-1",
      });
      await f.stack.engine.resume(run.id);
      const final = await f.stack.engine.settled(run.id);
      expect(final?.state).toBe("passed");
      expect(readFileSync(victim, "utf8")).toBe("untouched\n");
      // The first attempt's tests/test.sh (the one that planted the link) is not built on.
      const testSh = gitIn(f.repo, "show", `${final?.branch ?? ""}:tests/test.sh`);
      expect(testSh).not.toContain("ln -sf");
      expect(gitIn(f.repo, "show", `${final?.branch ?? ""}:greet.sh`)).toContain("!");
    } finally {
      cleanup();
      await f.cleanup();
    }
  });
});

describe("objects the builder's code borrows never reach the host (R4.7)", () => {
  it("borrowing in the runner's own verify run changes nothing that is pushed", async () => {
    const other = otherRepo();
    // Only in the controls' checkout (it has no alternates of its own): the builder's box
    // keeps its workspace whole, the runner's verify run borrows.
    const testSh = [
      "#!/bin/sh",
      "if [ ! -f .git/objects/info/alternates ]; then",
      `  echo '${other.objects}' > .git/objects/info/alternates && echo borrowed`,
      "fi",
      "exit 0",
      "",
    ].join("\n");
    const r = await runChain(builderWritesTestSh(testSh));
    try {
      const verify = r.events.find((e) => e.type === "verify.finished");
      expect(String(verify?.data.output)).toContain("borrowed");
      expect(r.final.state).toBe("passed");
      const branch = r.final.branch ?? "";
      expect(gitIn(r.f.repo, "ls-tree", "-r", "--name-only", branch)).not.toContain("private.txt");
    } finally {
      other.cleanup();
      await r.f.cleanup();
    }
  });

  it("a builder whose code makes its workspace borrow objects from another repository FAILs, nothing pushed", async () => {
    // Another repository on this machine: its objects are not in the builder's box, so the
    // bundle of the builder's work cannot be made; nothing of it reaches the host.
    const other = otherRepo();
    const testSh = `#!/bin/sh\necho '${other.objects}' > .git/objects/info/alternates && echo borrowed\nexit 0\n`;
    const r = await runChain(builderWritesTestSh(testSh));
    try {
      expect(r.events.find((e) => e.type === "verify.finished")).toBeUndefined();
      expectBuilderRefused(r, "the builder's work could not be read from its workspace");
    } finally {
      other.cleanup();
      await r.f.cleanup();
    }
  });
});

describe("the run output is written without following the builder's links (R9.3)", () => {
  it("a committed .forge symlink: nothing is written through it, nothing is pushed", async () => {
    const outside = tempDir("forge-outside-");
    const { f, final, events } = await runChain(
      builderWritesTestSh(`#!/bin/sh\nln -sfn '${outside.dir}' .forge\necho ok\n`, {
        runMake: true,
      }),
    );
    try {
      expect(final.state).toBe("passed");
      expect(readdirSync(outside.dir)).toEqual([]);
      const output = events.find((e) => e.type === "runner.run.output");
      expect(output?.data.pushed).toBe(false);
      expect(String(output?.data.reason)).toMatch(/\.forge is not a plain directory/);
      expect(gitIn(f.repo, "branch", "--list", "forge/*").trim()).toBe("");
    } finally {
      outside.cleanup();
      await f.cleanup();
    }
  });

  it("a link at the run output's own name is replaced, not written through", async () => {
    const { victim, cleanup } = victimFile();
    const { f, final, events } = await runChain(
      builderWritesTestSh(
        `#!/bin/sh\nmkdir -p .forge\nln -sf '${victim}' ".forge/run-output-$FORGE_RUN_ID.md"\necho ok\n`,
        { runMake: true },
      ),
    );
    try {
      expect(final.state).toBe("passed");
      expect(readFileSync(victim, "utf8")).toBe("untouched\n");
      const output = events.find((e) => e.type === "runner.run.output");
      expect(output?.data.pushed).toBe(true);
      const pushed = gitIn(f.repo, "show", `${final.branch}:.forge/run-output-${final.id}.md`);
      expect(pushed).toContain("forgechain");
    } finally {
      cleanup();
      await f.cleanup();
    }
  });
});

describe("fail-closed agent outcomes (R3.2)", () => {
  it("a missing structured output FAILs and stops the chain", async () => {
    const { f, final, status } = await runChain(
      withRole("architect", [{ text: "I looked around. All good!" }]),
    );
    try {
      expect(status.steps.map((s) => s.state)).toEqual(["failed", "queued", "queued", "queued"]);
      expect(status.steps[0]?.decision?.reasons.join(" ")).toMatch(/no structured output/i);
      expect(final.state).toBe("failed");
    } finally {
      await f.cleanup();
    }
  });

  it("an invalid structured output FAILs", async () => {
    const { f, status } = await runChain(
      withRole("architect", [
        { structured: { verdict: "PASS", summary: "too short", plan: { tasks: [] } } },
        { text: "done" },
      ]),
    );
    try {
      expect(status.steps[0]?.state).toBe("failed");
    } finally {
      await f.cleanup();
    }
  });

  it("a timeout FAILs", async () => {
    const { f, status } = await runChain(
      withRole("architect", [
        { tools: [{ name: "Read", input: { file_path: "README.md" } }], delayMs: 20_000 },
      ]),
      { stepTimeoutMs: 2_500 },
    );
    try {
      expect(status.steps[0]?.state).toBe("failed");
      expect(status.steps[0]?.decision?.reasons.join(" ")).toMatch(
        /timed out after 3 s|timed out after 2 s/,
      );
    } finally {
      await f.cleanup();
    }
  });

  it("a crashed agent FAILs", async () => {
    const t = tempDir("forge-crash-");
    const crash = join(t.dir, "claude");
    writeFileSync(crash, "#!/bin/sh\necho 'partial output'\nkill -SEGV $$\n");
    chmodSync(crash, 0o755);
    try {
      const { f, status } = await runChain(demoScript(), { claudeBinary: crash });
      try {
        expect(status.steps[0]?.state).toBe("failed");
        expect(status.steps[0]?.decision?.reasons.join(" ")).toMatch(
          /the agent exited with SIGSEGV|exited with/,
        );
        expect(status.steps.slice(1).every((s) => s.state === "queued")).toBe(true);
      } finally {
        await f.cleanup();
      }
    } finally {
      t.cleanup();
    }
  });
});
