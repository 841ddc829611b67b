// The runner's own repositories (run-repos.ts, agent-tree.ts): host git only ever runs here,
// agents' commits carry no file on a secret path and no history, the builder's tree goes back
// onto the real base with those files as they were.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyOntoBase, listTree, treeProblem } from "../../src/runner/agent-tree.js";
import { diffFromBase } from "../../src/runner/diff.js";
import {
  AGENT_BASE_REF,
  AGENT_HEAD_REF,
  measureRun,
  openRunRepos,
  readRef,
} from "../../src/runner/run-repos.js";
import { gitIn, makeRepo, tempDir, writeFiles } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const SECRETS = {
  ".env": "API_KEY=forge-test-canary-env\n",
  "config/secrets/db.txt": "forge-test-canary-db\n",
  "certs/server.pem": "forge-test-canary-pem\n",
  ".claude/agents/builder.md": "---\n---\nrepo builder\n",
};

function remoteWithHistory() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const remote = join(t.dir, "remote");
  const first = makeRepo(remote, { "README.md": "hi\n", ".env.example": "API_KEY=\n", ...SECRETS });
  writeFiles(remote, { "src/app.ts": "export const x = 1;\n" });
  gitIn(remote, "add", "-A");
  gitIn(remote, "commit", "-q", "-m", "second");
  return { t, remote, first, base: gitIn(remote, "rev-parse", "HEAD") };
}

/** Every object an agents' repository holds, as text. */
function allObjects(repo: string): string {
  const ids = gitIn(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)");
  return ids
    .split("\n")
    .filter(Boolean)
    .map((id) => gitIn(repo, "cat-file", "-p", id))
    .join("\n");
}

describe("openRunRepos and measureRun", () => {
  it("measures the base in real.git and gives agents.git one commit without secret files or history", async () => {
    const { t, remote, base } = remoteWithHistory();
    const repos = await openRunRepos(join(t.dir, "run"), remote);
    const measured = await measureRun(repos, { runId: "run-1", baseRef: "main" });
    expect(measured.baseSha).toBe(base);
    expect(measured.workHead).toBe(base);
    expect(measured.hidden).toEqual([
      ".claude/agents/builder.md",
      ".env",
      "certs/server.pem",
      "config/secrets/db.txt",
    ]);
    expect(await readRef(repos.agents, AGENT_BASE_REF)).toBe(measured.agentBase);
    expect(measured.agentHead).toBe(measured.agentBase);
    const paths = (await listTree(repos.agents, measured.agentBase)).map((e) => e.path);
    expect(paths).toEqual([".env.example", "README.md", "src/app.ts"]);
    // No parent: the history (and the first commit's blobs) stay in real.git.
    expect(gitIn(repos.agents, "rev-list", "--count", measured.agentBase)).toBe("1");
    expect(allObjects(repos.agents)).not.toMatch(/forge-test-canary/);
    expect(allObjects(repos.real)).toMatch(/forge-test-canary-env/);
  });

  it("is idempotent: a resumed run keeps its base and its agents' commit", async () => {
    const { t, remote, base } = remoteWithHistory();
    const dir = join(t.dir, "run");
    const first = await measureRun(await openRunRepos(dir, remote), {
      runId: "r",
      baseRef: "main",
    });
    writeFiles(remote, { "later.txt": "x" });
    gitIn(remote, "add", "-A");
    gitIn(remote, "commit", "-q", "-m", "later");
    const again = await measureRun(await openRunRepos(dir, remote), {
      runId: "r",
      baseRef: "main",
      knownBaseSha: base,
    });
    expect(again).toEqual(first);
  });

  it("refuses a base ref that does not exist, and leaves no half-made clone behind", async () => {
    const { t, remote } = remoteWithHistory();
    const repos = await openRunRepos(join(t.dir, "run"), remote);
    await expect(measureRun(repos, { runId: "r", baseRef: "nope" })).rejects.toThrow(
      /base ref "nope" does not exist/,
    );
    await expect(openRunRepos(join(t.dir, "run2"), join(t.dir, "missing"))).rejects.toThrow();
    expect(existsSync(join(t.dir, "run2", "git", "real.git"))).toBe(false);
  });

  it("a review: the head is sanitized on top of the sanitized merge base", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const remote = join(t.dir, "remote");
    const base = makeRepo(remote, { "a.txt": "a\n", ".env": "K=forge-test-canary-base\n" });
    gitIn(remote, "checkout", "-q", "-b", "feature");
    writeFiles(remote, { "a.txt": "changed\n", ".env": "K=forge-test-canary-head\n" });
    gitIn(remote, "commit", "-q", "-am", "feature work");
    const head = gitIn(remote, "rev-parse", "HEAD");
    gitIn(remote, "checkout", "-q", "main");
    writeFiles(remote, { "main-only.txt": "m" });
    gitIn(remote, "add", "-A");
    gitIn(remote, "commit", "-q", "-m", "main moves on");
    const repos = await openRunRepos(join(t.dir, "run"), remote);
    const m = await measureRun(repos, { runId: "r", baseRef: "main", headRef: "feature" });
    expect(m.baseSha).toBe(base);
    expect(m.headSha).toBe(head);
    expect(m.workHead).toBe(head);
    expect(await readRef(repos.agents, AGENT_HEAD_REF)).toBe(m.agentHead);
    expect(gitIn(repos.agents, "rev-parse", `${m.agentHead}^`)).toBe(m.agentBase);
    const agents = await diffFromBase(repos.agents, m.agentBase, m.agentHead);
    expect(agents.files).toEqual(["a.txt"]);
    const real = await diffFromBase(repos.real, m.baseSha, head);
    expect(real.files).toEqual([".env", "a.txt"]);
    expect(allObjects(repos.agents)).not.toMatch(/forge-test-canary/);
  });
});

describe("applyOntoBase and treeProblem", () => {
  it("puts the base's secret files back exactly and commits only a real change", async () => {
    const { t, remote, base } = remoteWithHistory();
    const repos = await openRunRepos(join(t.dir, "run"), remote);
    const m = await measureRun(repos, { runId: "r", baseRef: "main" });
    // The agents' base itself, re-applied, is no change at all.
    expect(await applyOntoBase(repos.real, m.agentBase, base, m.hiddenEntries, "none")).toBe(base);
    // A builder's tree: the agents' base plus one edit (built here in a scratch clone).
    const work = join(t.dir, "work");
    gitIn(t.dir, "clone", "-q", repos.real, work);
    gitIn(work, "checkout", "-q", "--detach", m.agentBase);
    writeFiles(work, { "src/app.ts": "export const x = 2;\n" });
    gitIn(work, "commit", "-q", "-am", "builder");
    const built = gitIn(work, "rev-parse", "HEAD");
    gitIn(work, "push", "-q", repos.real, `${built}:refs/forge/test-built`);
    const applied = await applyOntoBase(repos.real, built, base, m.hiddenEntries, "forge: work");
    expect(gitIn(repos.real, "rev-parse", `${applied}^`)).toBe(base);
    const facts = await diffFromBase(repos.real, base, applied);
    expect(facts.files).toEqual(["src/app.ts"]);
    expect(gitIn(repos.real, "show", `${applied}:.env`)).toBe("API_KEY=forge-test-canary-env");
  });

  it.each([
    [".env", "a file on a secret path"],
    ["deploy/secrets/token.txt", "a file on a secret path"],
    ["keys/id_rsa", "a file on a secret path"],
    ["x/.GIT/config", "a path inside .git"],
  ])("refuses a builder tree holding %s", (path, why) => {
    expect(treeProblem([{ mode: "100644", type: "blob", oid: "0".repeat(40), path }])).toContain(
      why,
    );
  });

  it("keeps the .env templates agents may read", () => {
    expect(
      treeProblem([{ mode: "100644", type: "blob", oid: "0".repeat(40), path: ".env.example" }]),
    ).toBeNull();
  });
});
