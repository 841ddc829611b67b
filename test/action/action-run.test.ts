// The packaged Action as the Actions runner starts it: `node action/dist/index.js` with the
// runner's variables and INPUT_*, against a fake GitHub on loopback (REST, git through the real
// `git http-backend`) with a workflow token the fake issued, the real claude binary in bwrap
// boxes on the scripted model. An `issues.labeled` event → the change chain PASSes: checks,
// sticky comment, branch, draft PR, gate, outputs in $GITHUB_OUTPUT, the job summary; its journal
// is then in the repository under refs/forge/state/7, and a later workflow run on a fresh runner
// finds the run there.
import { execFile, execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { demoScript } from "../../src/demo/demo-script.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { type FakeGitHubServer, startFakeGitHub } from "../app/fake-github-server.js";
import { createGitHubState, type GitHubState } from "../app/github-state.js";
import {
  commentCreated,
  issueLabeled,
  OWNER,
  pullRequest,
  REPO,
  workflowDispatch,
} from "../app/payloads.js";
import { ensureBuilt } from "../harness/build.js";
import { REPO_ROOT } from "../harness/claude-run.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import {
  GATE_SECRET,
  parseOutputFile,
  RUNTIME_SECRETS,
  runnerEnv,
  writeEvent,
} from "./action-kit.js";

const TOKEN = "ghs_forgetestworkflowtoken0000000000000";
let root: string;
let state: GitHubState;
let fake: FakeGitHubServer;
let model: ModelServer;
let bare: string;

beforeAll(async () => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "forge-action-e2e-"));
  const src = join(root, "src");
  await createDemoRepo(REPO_ROOT, src);
  bare = join(root, "git", OWNER, `${REPO}.git`);
  mkdirSync(join(root, "git", OWNER), { recursive: true });
  execFileSync("git", ["clone", "--quiet", "--bare", src, bare]);
  state = createGitHubState();
  state.permissions.set("alice", "write");
  state.tokens.push(TOKEN);
  fake = await startFakeGitHub({ state, gitRoot: join(root, "git") });
  model = await startModelServer(demoScript());
}, 120_000);

afterAll(async () => {
  await fake?.close();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** One workflow run: a fresh RUNNER_TEMP, the event file, the runner's variables. */
async function invoke(
  eventName: string,
  payload: Record<string, unknown>,
  runId: string,
  o: {
    /** Run the job as this unprivileged uid (as GitHub's `runner` user), not as root. */
    asUid?: number;
    /** Changes to the runner's environment (undefined: the variable is not set). */
    env?: Record<string, string | undefined>;
  } = {},
) {
  const { asUid } = o;
  const temp = join(root, `runner-${runId}`);
  mkdirSync(temp, { recursive: true });
  const event = writeEvent(temp, payload);
  const output = join(temp, "output");
  const summary = join(temp, "summary.md");
  writeFileSync(output, "");
  const base = runnerEnv({
    host: fake.host,
    root: REPO_ROOT,
    temp,
    eventName,
    event,
    runId,
    token: TOKEN,
    modelUrl: model.url,
    output,
    summary,
  });
  const env = Object.fromEntries(
    Object.entries({ ...base, ...o.env }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const logs: string[] = [];
  const code = await new Promise<number>((resolve) => {
    const bundle = join(REPO_ROOT, "action", "dist", "index.js");
    if (asUid !== undefined) execFileSync("chown", ["-R", `${asUid}:${asUid}`, temp]);
    const child = execFile(
      asUid === undefined ? process.execPath : "/usr/bin/setpriv",
      asUid === undefined
        ? [bundle]
        : [`--reuid=${asUid}`, `--regid=${asUid}`, "--clear-groups", process.execPath, bundle],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (error) => resolve(error ? Number((error as { code?: number }).code ?? 1) : 0),
    );
    child.stdout?.on("data", (d) => logs.push(String(d)));
    child.stderr?.on("data", (d) => logs.push(String(d)));
  });
  return {
    code,
    outputs: parseOutputFile(readFileSync(output, "utf8")),
    summary: existsSync(summary) ? readFileSync(summary, "utf8") : "",
    log: () => logs.join(""),
  };
}

const ANSWER = "forge-e2e-answer: greet the users of the command line";

/** The architect asks first; its re-attempt, whose prompt holds the answer, plans as the demo's. */
function askingScript() {
  const demo = demoScript();
  const architect = demo.routes?.find((r) => r.marker === "forgechain step: architect");
  const ask = {
    structured: {
      verdict: "FAIL",
      summary:
        "Who receives the greeting is not said in the ticket; the plan depends on it. ".repeat(4),
      plan: {
        tasks: [
          {
            objective: "Wait for the answer",
            files: ["greet.sh"],
            steps: ["Ask who receives the greeting"],
            verification: "an answer arrives",
          },
        ],
      },
      request: {
        id: "q1",
        kind: "clarification",
        question: "Who receives the greeting?",
        context: "greet.sh prints a greeting; the ticket does not say for whom.",
      },
    },
  };
  return {
    ...demo,
    routes: [
      { marker: ANSWER, turns: architect?.turns ?? [] },
      ...(demo.routes ?? []).map((r) =>
        r.marker === "forgechain step: architect" ? { ...r, turns: [ask] } : r,
      ),
    ],
  };
}

/** A branch with one file changed, pushed to the repository the fake GitHub serves: its head. */
function pushBranch(branch: string, file: string, text: string): string {
  const work = join(root, `work-${branch}`);
  execFileSync("git", ["clone", "--quiet", bare, work]);
  execFileSync("git", ["-C", work, "checkout", "--quiet", "-b", branch]);
  writeFileSync(join(work, file), text);
  execFileSync("git", ["-C", work, "add", "-A"]);
  const who = ["-c", "user.name=alice", "-c", "user.email=alice@example.com"];
  execFileSync("git", ["-C", work, ...who, "commit", "--quiet", "-m", `change ${file}`]);
  execFileSync("git", ["-C", work, "push", "--quiet", "origin", branch]);
  return execFileSync("git", ["-C", work, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
}

/** The demo's script with a reviewer that finds a blocking problem. */
function blockingScript() {
  const demo = demoScript();
  const fail = {
    structured: {
      verdict: "FAIL",
      summary:
        "The change adds credentials.txt with what looks like a live password; it must not be merged. ".repeat(
          3,
        ),
      findings: [
        {
          severity: "blocking",
          location: "credentials.txt:1",
          description: "A password is committed in plain text.",
        },
      ],
    },
  };
  return {
    ...demo,
    routes: (demo.routes ?? []).map((r) =>
      r.marker === "forgechain step: reviewer" ? { ...r, turns: [fail] } : r,
    ),
  };
}

/**
 * Lets other users through every directory from / down to `dir` (o+x), as a runner's own user
 * can reach its action's checkout; returns how to put the modes back. A clone under a private
 * `mktemp -d` is the usual case here.
 */
function openPathForOthers(dir: string): () => void {
  const changed: Array<[string, number]> = [];
  for (let d = dir; ; d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      changed.push([d, mode]);
    }
    if (dirname(d) === d) break;
  }
  return () => {
    for (const [d, mode] of changed) chmodSync(d, mode);
  };
}

/** Every regular file under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && statSync(p).size < 64 * 1024 * 1024) {
        if (readFileSync(p).includes(needle)) found.push(p);
      }
    }
  };
  walk(dir);
  return found;
}

describe("the Action's job against a fake GitHub", () => {
  it("an untrusted labeller: a reply on the issue, nothing runs, the step fails", async () => {
    state.permissions.set("mallory", "read");
    const r = await invoke("issues", issueLabeled({ sender: "mallory", number: 9 }), "900");
    expect(r.code, r.log()).toBe(1);
    expect(r.outputs.verdict).toBe("REFUSED");
    expect(r.log()).toMatch(/::error::forgechain refused this issues event/);
    expect(r.summary).toContain("## forgechain: REFUSED on #9");
    expect(
      state
        .commentsOn(9)
        .map((c) => c.body)
        .join("\n"),
    ).toMatch(/@mallory/);
    expect(state.checkRuns).toEqual([]);
  }, 120_000);

  it("a question PAUSES; /forge respond and /forge resume in two later workflow runs, on fresh runners, PASS", async () => {
    model.setScript(askingScript());
    const asked = await invoke("issues", issueLabeled({ sender: "alice", number: 11 }), "1101");
    expect(asked.outputs.verdict, asked.log()).toBe("PAUSED");
    expect(asked.code).toBe(0);
    expect(asked.log()).toMatch(/::notice::forgechain paused: answer on the issue/);
    const runId = asked.outputs.run_id;
    const answer = JSON.stringify({ run_id: runId, request_id: "q1", answer: ANSWER });
    const said = (author: string, body: string, id: string, env?: Record<string, undefined>) =>
      invoke("issue_comment", commentCreated({ author, number: 11, body }), id, { env });
    // A workflow that gives no gate_secret: the answer is refused, saying how to give one.
    const unsealed = await said("alice", `/forge respond ${answer}`, "1100", {
      INPUT_GATE_SECRET: undefined,
    });
    expect(unsealed.code, unsealed.log()).toBe(1);
    expect(unsealed.outputs.verdict).toBe("PAUSED");
    expect(unsealed.log()).toMatch(/::error::forgechain refused the answer: .*gate_secret/);
    expect(state.commentsOn(11).at(-1)?.body).toMatch(/refused: .*gate_secret/);
    const responded = await said("alice", `/forge respond ${answer}`, "1102");
    expect(responded.outputs.verdict, responded.log()).toBe("PAUSED");
    const resumed = await said("alice", `/forge resume ${runId}`, "1103");
    expect(resumed.outputs.verdict, resumed.log()).toBe("PASS");
    expect(resumed.outputs.run_id).toBe(runId);
    // The same answer again, in yet another workflow run: refused, nothing changes.
    const replay = await said("alice", `/forge respond ${answer}`, "1104");
    expect(replay.outputs.run_id).toBe(runId);
    // Refused, so the step fails: the human sees a red job, not only the reply.
    expect(replay.code, replay.log()).toBe(1);
    expect(replay.log()).toMatch(/::error::forgechain refused the command: .*already answered/);
    expect(
      state
        .commentsOn(11)
        .map((c) => c.body)
        .join("\n"),
    ).toMatch(/already answered/);
    model.setScript(demoScript());
  }, 400_000);

  it("pull_request labeled forge:review → the review chain on the head PASSes; no pull request opened", async () => {
    const head = pushBranch("feature", "NOTES.md", "A note for the review.\n");
    const pulls = state.pulls.length;
    const r = await invoke(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: head, number: 12 }),
      "1201",
    );
    expect(r.outputs.verdict, r.log()).toBe("PASS");
    const checks = Object.fromEntries(state.checksFor(head).map((c) => [c.name, c.conclusion]));
    expect(checks).toMatchObject({
      "forge/reviewer": "success",
      "forge/security": "success",
    });
    const gateRun = state.checksFor(head).find((c) => c.name === "forge/gate");
    // The gate is set on the head under review (the run finishes on that commit).
    expect(gateRun?.conclusion, JSON.stringify(gateRun)).toBe("success");
    expect(r.outputs.gate).toBe("success");
    expect(state.pulls.length).toBe(pulls);
    expect(r.outputs.pull_request).toBe("");
  }, 300_000);

  // On a runner the job's user owns the action's checkout; here another uid must be able to reach
  // this checkout, so the directories above it let others through for the test's length.
  it.skipIf(process.getuid?.() !== 0)(
    "as an unprivileged user, as on GitHub's runners: boxes in user namespaces, the chain PASSes",
    async () => {
      chmodSync(root, 0o755);
      const restore = openPathForOthers(REPO_ROOT);
      const r = await invoke("issues", issueLabeled({ sender: "alice", number: 13 }), "1301", {
        asUid: 70123,
      }).finally(restore);
      expect(r.outputs.verdict, r.log()).toBe("PASS");
      expect(r.code).toBe(0);
      // Every file the job made under its RUNNER_TEMP is the runner user's, not root's.
      const owners = execFileSync("find", [join(root, "runner-1301"), "-not", "-uid", "70123"], {
        encoding: "utf8",
      });
      expect(owners.trim()).toBe("");
    },
    300_000,
  );

  it("two workflow runs for the same issue at once: exactly one acts, the other says which and stops", async () => {
    const payload = () => issueLabeled({ sender: "alice", number: 15 });
    const [a, b] = await Promise.all([
      invoke("issues", payload(), "1501"),
      invoke("issues", payload(), "1502"),
    ]);
    const verdicts = [a.outputs.verdict, b.outputs.verdict].sort();
    expect(verdicts, `${a.log()}\n${b.log()}`).toEqual(["PASS", "REFUSED"]);
    const stopped = a.outputs.verdict === "REFUSED" ? a : b;
    expect(stopped.code).toBe(0);
    expect(stopped.log()).toMatch(/::notice::forgechain: workflow run 150\d .* is acting on this/);
    // One run's sticky comment on the issue: the other workflow run started nothing.
    const stickies = state.commentsOn(15).filter((c) => c.body.startsWith("<!-- forgechain:run:"));
    expect(stickies).toHaveLength(1);
  }, 300_000);

  it("issues.labeled → the change chain PASSes; its journal is kept in refs/forge/state/7", async () => {
    const r = await invoke("issues", issueLabeled({ sender: "alice", number: 7 }), "1001");
    expect(r.outputs.verdict, r.log()).toBe("PASS");
    expect(r.code).toBe(0);
    expect(r.summary).toContain("## forgechain: PASS on #7");
    expect(r.summary).toContain("**Gate:** `success`");
    expect(r.outputs.run_id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.outputs.branch).toMatch(/^forge\//);
    expect(r.outputs.pull_request).toMatch(/^\d+$/);
    expect(r.outputs.gate).toBe("success");
    expect(state.checkRuns.find((c) => c.name === "forge/gate")?.conclusion).toBe("success");
    for (const q of fake.api) {
      expect(q.authorization).toBe(`token ${TOKEN}`);
      assertMatchesOpenApi({ method: q.method, path: q.path, body: q.body });
    }
    // The token travels only in the environment of the action's own git and API calls: no
    // file the job left (its journal, its repositories, the boxes' workspaces) and no prompt
    // holds it.
    const prompts = JSON.stringify(model.requests.map((q) => q.body));
    for (const secret of [TOKEN, GATE_SECRET, ...Object.values(RUNTIME_SECRETS)]) {
      expect(filesHolding(join(root, "runner-1001"), secret), secret).toEqual([]);
      expect(prompts).not.toContain(secret);
    }
    const refs = execFileSync("git", ["-C", bare, "for-each-ref", "refs/forge/"], {
      encoding: "utf8",
    });
    expect(refs).toMatch(/refs\/forge\/state\/7/);
    expect(refs).toMatch(/refs\/forge\/proof/);
    // A later workflow run on a fresh runner: `/forge status` finds the run in that journal.
    const before = state.commentsOn(7).length;
    const status = await invoke(
      "issue_comment",
      commentCreated({ author: "alice", number: 7, body: "/forge status" }),
      "1002",
    );
    expect(status.outputs.run_id, status.log()).toBe(r.outputs.run_id);
    expect(state.commentsOn(7).length).toBeGreaterThan(before);
  }, 300_000);
  it("a reviewer's blocking finding: the review FAILs, the gate fails, auto-merge is turned off, the step fails", async () => {
    model.setScript(blockingScript());
    const head = pushBranch("leaky", "credentials.txt", "password=hunter2-not-real\n");
    const graphqlBefore = state.graphql.length;
    const r = await invoke(
      "pull_request",
      pullRequest({ action: "labeled", sender: "alice", headSha: head, number: 14 }),
      "1401",
    );
    model.setScript(demoScript());
    expect(r.outputs.verdict, r.log()).toBe("FAIL");
    expect(r.code).toBe(1);
    expect(r.outputs.gate).toBe("failure");
    const checks = Object.fromEntries(state.checksFor(head).map((c) => [c.name, c.conclusion]));
    expect(checks).toMatchObject({ "forge/reviewer": "failure", "forge/gate": "failure" });
    const asked = state.graphql.slice(graphqlBefore).map((g) => g.query);
    expect(asked.some((q) => q.includes("disablePullRequestAutoMerge"))).toBe(true);
    expect(r.summary).toContain("## forgechain: FAIL on #14");
    expect(r.summary).toContain("1 blocking finding (credentials.txt:1)");
    // One collapsible group per step in the job's log, each closed with its verdict.
    expect(r.log()).toMatch(
      /::group::forgechain: reviewer \(attempt 1\)\n[\s\S]*forgechain: reviewer: FAIL\n::endgroup::/,
    );
  }, 300_000);

  it("workflow_dispatch with an issue number: the change chain on that issue PASSes", async () => {
    state.issues.set(17, {
      title: "Greet with an exclamation mark",
      body: "greet.sh should print 'Hello, NAME!'",
    });
    const r = await invoke(
      "workflow_dispatch",
      workflowDispatch({ sender: "alice", issue: "17" }),
      "1701",
    );
    expect(r.outputs.verdict, r.log()).toBe("PASS");
    expect(r.code).toBe(0);
    expect(r.outputs.pull_request).toMatch(/^\d+$/);
    expect(state.commentsOn(17).some((c) => c.body.startsWith("<!-- forgechain:run:"))).toBe(true);
    // A new issue on a fresh runner: the box proof earlier jobs shared in refs/forge/proof is
    // checked against this runner and holds, so this job proves nothing and shares nothing.
    expect(r.log()).toMatch(
      /the box proof of \S+ from refs\/forge\/proof is checked against this runner/,
    );
    expect(r.log()).not.toContain("kept in refs/forge/proof");
    // Without a number, the step fails saying what the input must be; nothing is asked of GitHub.
    const calls = fake.api.length;
    const bad = await invoke(
      "workflow_dispatch",
      workflowDispatch({ sender: "alice", issue: "next one" }),
      "1702",
    );
    expect(bad.code).toBe(1);
    expect(bad.outputs.verdict).toBe("REFUSED");
    expect(bad.log()).toMatch(
      /::error::forgechain: workflow_dispatch: the `issue` input must be the number/,
    );
    expect(fake.api.length).toBe(calls);
    // Every request every job above made to the API, GraphQL included, is one GitHub documents.
    for (const q of fake.api) {
      expect(q.authorization).toBe(`token ${TOKEN}`);
      assertMatchesOpenApi({ method: q.method, path: q.path, body: q.body });
    }
  }, 300_000);
});
