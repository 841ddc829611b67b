// A step's workspace laid out in a box, and the builder's work brought back from it
// (step-workspace.ts, builder-import.ts), with real git in real bwrap boxes.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBox } from "../../src/boxes/create-box.js";
import { importBuilderWork } from "../../src/runner/builder-import.js";
import { measureRun, openRunRepos, readRef, WORK_REF } from "../../src/runner/run-repos.js";
import { layOutWorkspace } from "../../src/runner/step-workspace.js";
import { gitIn, makeRepo, tempDir } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const PATH = process.env.PATH ?? "/usr/bin:/bin";

function box(dir: string, home: string, readOnly: string[]) {
  return createBox("bwrap", { workspace: dir, home, readOnlyPaths: readOnly, allowNetwork: false });
}

async function fixture() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const remote = join(t.dir, "remote");
  makeRepo(remote, {
    "greet.sh": "echo hello\n",
    ".env": "API_KEY=forge-test-canary-committed\n",
  });
  const runDir = join(t.dir, "run");
  const repos = await openRunRepos(runDir, remote);
  const base = await measureRun(repos, { runId: "run-1", baseRef: "main" });
  const ws = join(runDir, "steps", "1-builder-1", "ws");
  const home = join(runDir, "steps", "1-builder-1", "home");
  await layOutWorkspace(
    { box, env: { PATH } },
    {
      source: repos.agents,
      commit: base.agentBase,
      branch: "forge/1-x",
      dir: ws,
      home,
      objects: "shared",
    },
  );
  const importTarget = {
    box: box(ws, home, [repos.agents]),
    ws,
    env: { PATH, HOME: home },
    repos,
    base,
    stepDir: join(runDir, "steps", "1-builder-1"),
    runId: "run-1",
    title: "Greet louder",
    timeoutMs: 60_000,
  };
  return { t, remote, repos, base, ws, home, importTarget };
}

describe("a builder's workspace and its work", () => {
  it("holds the base without secret files or history, on the run's branch", async () => {
    const { ws, base } = await fixture();
    expect(readFileSync(join(ws, "greet.sh"), "utf8")).toBe("echo hello\n");
    expect(existsSync(join(ws, ".env"))).toBe(false);
    expect(gitIn(ws, "rev-parse", "--abbrev-ref", "HEAD")).toBe("forge/1-x");
    expect(gitIn(ws, "rev-parse", "HEAD")).toBe(base.agentBase);
    expect(gitIn(ws, "rev-list", "--count", "HEAD")).toBe("1");
  });

  it("comes back whole, uncommitted work included, onto the real base with its secret files", async () => {
    const { ws, repos, base, importTarget } = await fixture();
    writeFileSync(join(ws, "greet.sh"), "echo HELLO\n");
    writeFileSync(join(ws, "new.txt"), "new\n");
    const r = await importBuilderWork(importTarget);
    expect(r).toMatchObject({ ok: true, changed: true });
    const head = await readRef(repos.real, WORK_REF);
    expect(gitIn(repos.real, "rev-parse", `${head}^`)).toBe(base.baseSha);
    expect(gitIn(repos.real, "show", `${head}:greet.sh`)).toBe("echo HELLO");
    expect(gitIn(repos.real, "show", `${head}:.env`)).toBe("API_KEY=forge-test-canary-committed");
    expect(gitIn(repos.real, "diff", "--name-only", base.baseSha, head ?? "")).toBe(
      "greet.sh\nnew.txt",
    );
  });

  it("a workspace without changes imports as no change", async () => {
    const { importTarget, base } = await fixture();
    expect(await importBuilderWork(importTarget)).toEqual({
      ok: true,
      agentHead: base.agentBase,
      workHead: base.baseSha,
      changed: false,
    });
  });

  it("a driver the builder plants in its .git runs in its box at most, never on the host", async () => {
    const { t, ws, importTarget } = await fixture();
    const marker = join(t.dir, "ran-on-the-host");
    // The workspace's config is the builder's to write: commondir, a clean filter, fsmonitor.
    writeFileSync(
      join(ws, ".git", "config"),
      `${readFileSync(join(ws, ".git", "config"), "utf8")}[filter "x"]\n\tclean = touch ${marker}; cat\n[core]\n\tfsmonitor = touch ${marker}\n`,
    );
    writeFileSync(join(ws, ".gitattributes"), "* filter=x\n");
    writeFileSync(join(ws, "greet.sh"), "echo planted\n");
    const r = await importBuilderWork(importTarget);
    expect(r.ok).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it("a builder that adds a file on a secret path FAILs, and nothing of it is used", async () => {
    const { ws, repos, importTarget } = await fixture();
    writeFileSync(join(ws, ".env"), "API_KEY=forge-test-written-by-builder\n");
    const r = await importBuilderWork(importTarget);
    expect(r).toEqual({
      ok: false,
      reason: expect.stringContaining("holds a file on a secret path (.env)"),
    });
    expect(await readRef(repos.real, WORK_REF)).toBeNull();
  });
});
