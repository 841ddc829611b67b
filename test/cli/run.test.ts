// `forge run`, `forge demo` and the box-proof gate as a user meets them: the real CLI bundle.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/cli/local/stack.js";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { demoScript } from "../../src/demo/demo-script.js";
import { installRoot } from "../../src/install-root.js";
import { loadProfiles } from "../../src/policy/index.js";
import { loadRepoPolicy } from "../../src/policy/repo-policy.js";
import { currentValidity, ensureBoxProof } from "../../src/runner/box-gate.js";
import { gitRunnerIn } from "../../src/runner/git-runner.js";
import { startModelServer } from "../../src/scripted-model/server.js";
import { ensureBuilt } from "../harness/build.js";
import { gitIn, tempDir } from "../helpers/git-repo.js";

const root = installRoot();
const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => ensureBuilt());

async function forge(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, [join(root, "bin", "forge.js"), ...args], {
      env,
      timeout: 240_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function sandbox() {
  const t = tempDir("forge-cli-");
  cleanups.push(t.cleanup);
  const home = join(t.dir, "home");
  mkdirSync(home);
  return {
    dir: t.dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      FORGE_HOME: join(t.dir, "forge-home"),
    },
  };
}

describe("forge run", () => {
  it("without model credentials stops with a message naming what to set", async () => {
    const s = sandbox();
    const repo = join(s.dir, "repo");
    await createDemoRepo(root, repo);
    const r = await forge(["run", "--repo", repo, "--task", "do it"], s.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(r.stderr).toMatch(/forge demo/);
  });

  it("refuses a repository without a test control before anything runs, naming `test`", async () => {
    const s = sandbox();
    const repo = join(s.dir, "repo");
    await createDemoRepo(root, repo);
    writeFileSync(
      join(repo, ".github", "forge.yml"),
      "validate:\n  lint:\n    run: sh -n greet.sh\n",
    );
    gitIn(repo, "commit", "-qam", "no test control");
    const r = await forge(["run", "--repo", repo, "--task", "do it"], {
      ...s.env,
      ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\btest\b/);
    expect(r.stderr).toMatch(/nothing ran/);
    const store = openStore(s.env.FORGE_HOME);
    expect(await store.listRuns()).toEqual([]);
    await store.close();
  });

  it("bad usage exits 2", async () => {
    const s = sandbox();
    expect((await forge(["run", "--repo", join(s.dir, "nope"), "--task", "x"], s.env)).code).toBe(
      2,
    );
    expect(
      (await forge(["run", "--repo", s.dir, "--task", "x", "--chain", "weird"], s.env)).code,
    ).toBe(2);
  });
});

describe("forge demo", () => {
  it("runs the change chain on the sample repo through the real claude binary, labelled as scripted", async () => {
    const s = sandbox();
    const r = await forge(["demo", "--clean"], s.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/SCRIPTED MODEL/);
    expect(r.stdout).toMatch(/refused: .*forge guard/);
    for (const role of ["architect", "builder", "reviewer", "security"]) {
      // The final report: each role's verdict, then what its agent cost.
      expect(r.stdout).toMatch(
        new RegExp(`\\n  ${role}\\s+PASS  \\$\\d+\\.\\d{4} · \\d+ in, \\d+ out\\n`),
      );
    }
    expect(r.stdout).toMatch(/run output: \.forge\/run-output-[0-9a-f]{32}\.md/);
    expect(r.stdout).toContain("| 4 | security | PASS |");
  });
});

describe("the box proof gate (R7.2)", () => {
  it("proves once, then goes stale when validate: changes, naming the fact", async () => {
    const s = sandbox();
    const repo = join(s.dir, "repo");
    await createDemoRepo(root, repo);
    const profiles = loadProfiles(join(root, "profiles"));
    const policyOf = () => loadRepoPolicy(repo, { git: gitRunnerIn(repo), profiles });
    const store = openStore(s.env.FORGE_HOME);
    const model = await startModelServer({ turns: [] });
    try {
      const opts = {
        store,
        repo,
        box: "bwrap" as const,
        root,
        forgeHome: s.env.FORGE_HOME,
        env: {
          ...s.env,
          ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
          ANTHROPIC_BASE_URL: model.url,
        },
        ownWork: false,
      };
      const first = await currentValidity({ ...opts, config: (await policyOf()).config });
      expect(first.valid).toBe(false);
      const gate = await ensureBoxProof({ ...opts, config: (await policyOf()).config });
      expect(gate.failure, gate.failure ?? "").toBeNull();
      expect((await currentValidity({ ...opts, config: (await policyOf()).config })).valid).toBe(
        true,
      );
      writeFileSync(
        join(repo, ".github", "forge.yml"),
        "validate:\n  test:\n    run: make test && true\n",
      );
      gitIn(repo, "commit", "-qam", "change validate");
      const after = await currentValidity({ ...opts, config: (await policyOf()).config });
      expect(after.valid).toBe(false);
      // The builder's allowed commands follow validate:, so its settings may change too.
      if (!after.valid) expect(after.changed).toContain("validate");
    } finally {
      await model.close();
      await store.close();
    }
  });
});

describe("forge run, Ctrl-C", () => {
  it("cancels cleanly, journals it, and forge status shows it", async () => {
    const s = sandbox();
    const repo = join(s.dir, "repo");
    await createDemoRepo(root, repo);
    const script = demoScript();
    const slow = {
      ...script,
      routes: (script.routes ?? []).map((r) =>
        r.marker === "forgechain step: builder"
          ? { ...r, turns: r.turns.map((t, i) => (i === 0 ? { ...t, delayMs: 30_000 } : t)) }
          : r,
      ),
    };
    const model = await startModelServer(slow);
    try {
      const env = {
        ...s.env,
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
      };
      const child = spawn(
        process.execPath,
        [join(root, "bin", "forge.js"), "run", "--repo", repo, "--task", "Greet louder"],
        { env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout.on("data", (d) => {
        out += String(d);
      });
      const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
      const end = Date.now() + 120_000;
      while (!/builder\s+running/.test(out) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 100));
      expect(out).toMatch(/builder\s+running/);
      child.kill("SIGINT");
      expect(await exited).toBe(1);
      expect(out).toMatch(/cancelling \(Ctrl-C\)/);
      expect(out).toMatch(/: CANCELLED/);
      const id = /run ([0-9a-f]{32}) \(change chain/.exec(out)?.[1] ?? "";
      const status = await forge(["status", id, "--json"], env);
      const parsed = JSON.parse(status.stdout) as {
        run: { state: string };
        events: Array<{ type: string }>;
      };
      expect(parsed.run.state).toBe("cancelled");
      expect(parsed.events.map((e) => e.type)).toContain("run.cancelled");
    } finally {
      await model.close();
    }
  }, 180_000); // the wait for the builder above allows 120 s (box proof + architect, loaded CI)
});
