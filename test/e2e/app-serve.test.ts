// The whole App, for real: `forge serve` (Probot's `run`) as a child process talking to a fake
// GitHub Enterprise Server on loopback (GHE_HOST / GHE_PROTOCOL=http), git through the real
// `git http-backend` with the installation token, the real claude binary in bwrap boxes on
// the scripted model (demoScript). Asserted on what the fake GitHub received.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { demoScript } from "../../src/demo/demo-script.js";
import { git } from "../../src/runner/git.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { type FakeGitHubServer, startFakeGitHub } from "../app/fake-github-server.js";
import { createGitHubState, type GitHubState } from "../app/github-state.js";
import { FULL, issueLabeled, OWNER, REPO } from "../app/payloads.js";
import { type ServeProcess, startServeProcess } from "../app/serve-process.js";
import { ensureBuilt } from "../harness/build.js";
import { REPO_ROOT } from "../harness/claude-run.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { waitFor as waitUntil } from "../harness/wait-for.js";

let root: string;
let state: GitHubState;
let fake: FakeGitHubServer;
let model: ModelServer;
let serve: ServeProcess;
let bare: string;
const forgeHome = () => join(root, "forge-home");

const waitFor = <T>(what: string, fn: () => T | undefined | null | false, ms?: number) =>
  waitUntil(what, fn, shortLogs, ms);

/** The server's log lines as `level msg {err}`, without the payloads Probot logs. */
function shortLogs(): string[] {
  return (serve?.logs ?? []).slice(-60).map((l) => {
    try {
      const j = JSON.parse(l) as { level?: number; msg?: string; err?: unknown; runId?: string };
      return `${j.level} ${j.msg ?? ""} ${j.runId ?? ""} ${j.err ? JSON.stringify(j.err).slice(0, 400) : ""}`;
    } catch {
      return l.slice(0, 400);
    }
  });
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.isFile() && st.size < 64 * 1024 * 1024) out.push(p);
  }
  return out;
}

beforeAll(async () => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "forge-app-e2e-"));
  const src = join(root, "src");
  await createDemoRepo(REPO_ROOT, src);
  const gitRoot = join(root, "git");
  bare = join(gitRoot, OWNER, `${REPO}.git`);
  mkdirSync(join(gitRoot, OWNER), { recursive: true });
  await git(["clone", "--quiet", "--bare", src, bare], { cwd: root });
  state = createGitHubState();
  state.permissions.set("alice", "write");
  fake = await startFakeGitHub({ state, gitRoot });
  model = await startModelServer(demoScript());
  serve = await startServeProcess({
    gheHost: fake.host,
    forgeHome: forgeHome(),
    modelUrl: model.url,
  });
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  await fake?.close();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("forge serve against a fake GitHub (GHE_HOST)", () => {
  it("a delivery with a wrong X-Hub-Signature-256 is answered 400 before any handler runs", async () => {
    const before = fake.api.length;
    const wrong = await serve.deliver("issues", issueLabeled({ sender: "alice" }), {
      signature: `sha256=${"0".repeat(64)}`,
    });
    expect(wrong.status).toBe(400);
    const unsigned = await serve.deliver("issues", issueLabeled({ sender: "alice" }), {
      signature: "",
    });
    expect(unsigned.status).toBe(400);
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.api.length).toBe(before);
  });

  it("label → architect, builder, reviewer, security on the real CLI → checks, sticky comment, run output, draft PR, gate", async () => {
    const delivered = await serve.deliver("issues", issueLabeled({ sender: "alice", number: 7 }));
    expect(delivered.status).toBeGreaterThanOrEqual(200);
    expect(delivered.status).toBeLessThan(300);

    const gateCheck = await waitFor("forge/gate", () =>
      state.checkRuns.find((c) => c.name === "forge/gate"),
    );
    const head = gateCheck.headSha;
    expect(gateCheck.conclusion).toBe("success");

    // The token request came first, with the App's JWT; then only installation tokens.
    expect(fake.api[0]?.pathname).toBe("/app/installations/42/access_tokens");
    expect(fake.api[0]?.authorization).toMatch(/^bearer /i);
    for (const r of fake.api) {
      expect(r.problems, `${r.method} ${r.path}`).toEqual([]);
      assertMatchesOpenApi({ method: r.method, path: r.path, body: r.body });
    }
    expect(
      fake.api.some((r) => r.pathname === `/repos/${FULL}/collaborators/alice/permission`),
    ).toBe(true);

    // One check run per role on the pushed head, completed with the verdict.
    const roles = ["architect", "builder", "reviewer", "security"];
    for (const role of roles) {
      const c = state.checksFor(head).find((x) => x.name === `forge/${role}`);
      expect(c?.conclusion, role).toBe("success");
      expect(c?.history.at(-1)).toBe("completed:success");
      expect(c?.externalId).toMatch(/^[0-9a-f]{32}$/);
    }
    const runId = state.checksFor(head)[0]?.externalId ?? "";

    // The sticky comment: one, edited in place, ending PASSED with each verdict.
    await waitFor("final sticky", () =>
      state.commentsOn(7).find((c) => c.body.includes("### forgechain · change chain · ✅ passed")),
    );
    const sticky = state
      .commentsOn(7)
      .filter((c) => c.body.startsWith(`<!-- forgechain:run:${runId} -->`));
    expect(sticky).toHaveLength(1);
    expect(sticky[0]?.edits).toBeGreaterThan(0);
    for (const role of roles)
      expect(sticky[0]?.body).toMatch(new RegExp(`\\| ${role} \\| ✅ passed \\| PASS \\|`));

    // The draft PR from the run's branch, with the plan and the claim.
    expect(state.pulls).toHaveLength(1);
    const pr = state.pulls[0];
    expect(pr?.draft).toBe(true);
    expect(pr?.base).toBe("main");
    expect(pr?.head).toMatch(/^forge\/7-greet-with-an-exclamation-mark$/);
    expect(pr?.body).toContain("Closes #7");
    expect(pr?.body).toContain("## Plan (architect)");

    // The branch really reached "GitHub" through git http-backend, with the run output.
    const tree = await git(["ls-tree", "-r", "--name-only", head], { cwd: bare });
    expect(tree.stdout).toContain(`.forge/run-output-${runId}.md`);
    const greet = await git(["show", `${head}:greet.sh`], { cwd: bare });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    expect(greet.stdout).toContain("Hello, ${1:-world}!");
    expect((await git(["rev-parse", `refs/heads/${pr?.head}`], { cwd: bare })).stdout.trim()).toBe(
      head,
    );
    expect(fake.git.length).toBeGreaterThan(0);
    expect(fake.git.every((g) => g.authorized)).toBe(true);
    expect(fake.git.some((g) => g.path.includes("git-receive-pack"))).toBe(true);

    // The installation token never reached the journal, the workspaces or the model.
    expect(state.tokens.length).toBeGreaterThan(0);
    const everything = filesUnder(forgeHome()).map((f) => readFileSync(f).toString("latin1"));
    const prompts = JSON.stringify(model.requests.map((r) => r.body));
    for (const token of state.tokens) {
      expect(everything.some((t) => t.includes(token))).toBe(false);
      expect(prompts.includes(token)).toBe(false);
      const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
      expect(everything.some((t) => t.includes(basic))).toBe(false);
    }
    const apiCount = fake.api.length;
    process.stdout.write(
      `app-serve e2e: ${apiCount} GitHub API requests for the 4-role change chain\n`,
    );
    expect(apiCount).toBeLessThanOrEqual(40);
  }, 300_000);

  it("the same delivery id again is a no-op", async () => {
    const payload = issueLabeled({ sender: "alice", number: 8 });
    const first = await serve.deliver(
      "issues",
      { ...payload, label: { name: "not-forge" } },
      { id: "fixed-delivery-id" },
    );
    expect(first.status).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 2000));
    const before = fake.api.length;
    const again = await serve.deliver("issues", payload, { id: "fixed-delivery-id" });
    expect(again.status).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 2000));
    expect(fake.api.length).toBe(before);
    expect(serve.logs.some((l) => l.includes("redelivered webhook"))).toBe(true);
  });

  it("survives kill -9 mid-chain: the restarted server recovers the run and edits the same sticky comment", async () => {
    const slow = demoScript();
    const builder = slow.routes?.find((r) => r.marker.endsWith("builder"));
    if (!builder?.turns[0]) throw new Error("demo script has no builder route");
    builder.turns[0].delayMs = 20_000;
    model.setScript(slow);
    const delivered = await serve.deliver(
      "issues",
      issueLabeled({ sender: "alice", number: 9, title: "Second change" }),
    );
    expect(delivered.status).toBeLessThan(300);
    await waitFor("builder running", () =>
      state.commentsOn(9).find((c) => /\| builder \| 🔄 running/.test(c.body)),
    );
    serve.child.kill("SIGKILL");
    await new Promise((r) => serve.child.once("exit", r));
    model.setScript(demoScript());
    serve = await startServeProcess({
      gheHost: fake.host,
      forgeHome: forgeHome(),
      modelUrl: model.url,
    });
    const gates = () => state.checkRuns.filter((c) => c.name === "forge/gate");
    await waitFor("second gate", () => gates().length === 2);
    expect(gates()[1]?.conclusion).toBe("success");
    await waitFor("final sticky", () =>
      state.commentsOn(9).find((c) => c.body.includes("change chain · ✅ passed")),
    );
    const sticky = state.commentsOn(9).filter((c) => c.body.startsWith("<!-- forgechain:run:"));
    expect(sticky).toHaveLength(1);
    expect(sticky[0]?.body).toMatch(/\| builder \| ✅ passed \(attempt 2\) \| PASS \|/);
    expect(
      serve.logs.some(
        (l) => l.includes("recovering unfinished runs") && /"runs":\["[0-9a-f]{32}"\]/.test(l),
      ),
    ).toBe(true);
  }, 300_000);

  // Needs the runner's side of the App's branch plan: src/runner/finish-run.ts pushing with
  // `--force-with-lease=refs/heads/<branch>:<lease>` from LocalRunnerOptions.branchLease (which
  // src/app/app-runner.ts passes). Until then the second run's push is refused — its commit sits
  // on the current base, not on the old branch — and this test fails at "passed".
  it("a second label on the finished issue updates the same branch and draft PR", async () => {
    const branch = "forge/7-greet-with-an-exclamation-mark";
    const before = (await git(["rev-parse", `refs/heads/${branch}`], { cwd: bare })).stdout.trim();
    const pulls = state.pulls.length;
    const gates = state.checkRuns.filter((c) => c.name === "forge/gate").length;
    const delivered = await serve.deliver("issues", issueLabeled({ sender: "alice", number: 7 }));
    expect(delivered.status).toBeLessThan(300);
    const finalSticky = await waitFor("the second run's final sticky comment", () =>
      state
        .commentsOn(7)
        .find(
          (c) =>
            c.body.includes(`updates \`${branch}\``) &&
            /change chain · (✅ passed|❌ failed)/.test(c.body),
        ),
    );
    // The push's refusal, if any, is in the comment's "Why the run failed".
    expect(finalSticky.body, finalSticky.body).toContain("change chain · ✅ passed");
    await waitFor("the second gate on issue 7", () =>
      state.checkRuns.filter((c) => c.name === "forge/gate").length > gates ? true : null,
    );
    const after = (await git(["rev-parse", `refs/heads/${branch}`], { cwd: bare })).stdout.trim();
    expect(after).not.toBe(before);
    // Replaced, not fast-forwarded: the new work sits on the current base.
    const ancestor = await git(["merge-base", "--is-ancestor", before, after], {
      cwd: bare,
      allowFailure: true,
    });
    expect(ancestor.exitCode).toBe(1);
    expect(state.pulls.length).toBe(pulls);
    const runId = /forgechain:run:([0-9a-f]{32})/.exec(finalSticky.body)?.[1] ?? "";
    expect(state.pulls.find((p) => p.head === branch)?.body).toContain(runId);
    expect(finalSticky.body).toMatch(/\*\*Cost:\*\* \$\d+\.\d{4} · /);
  }, 300_000);
});
