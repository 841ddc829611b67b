// `forge box prove --repo` on the sample projects, as a user runs it: it must run what a run
// runs (the repository's resolved setup: and validate: from its default branch, preset
// included) and so pass exactly when a run's setup and controls would pass.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { ProveCheck } from "../../src/boxes/prove-types.js";
import { tempDir } from "../helpers/git-repo.js";
import { root, useModelServer } from "../runner/chain-helpers.js";
import { CHAIN_TIMEOUT_MS, makeProjectRepo, outcome, runProject, TICKETS } from "./project-kit.js";

const server = useModelServer();

interface ProveRun {
  code: number | undefined;
  ok: boolean;
  checks: ProveCheck[];
  /** Every check in one line each, for assertion messages. */
  text: string;
}

/** `forge box prove --repo <repo> --json --no-store` with a HOME of its own (no login file). */
async function proveCli(repo: string, dir: string): Promise<ProveRun> {
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  const r = await execa(
    process.execPath,
    [join(root, "bin", "forge.js"), "box", "prove", "--repo", repo, "--json", "--no-store"],
    {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        FORGE_HOME: join(dir, "forge-home"),
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
      },
      extendEnv: false,
      reject: false,
      timeout: 150_000,
    },
  );
  const json = r.stdout.slice(r.stdout.indexOf("{"));
  let report: { ok?: boolean; checks?: ProveCheck[] } = {};
  try {
    report = JSON.parse(json) as typeof report;
  } catch {
    throw new Error(
      `box prove printed no JSON report (exit ${r.exitCode}): ${r.stdout}${r.stderr}`,
    );
  }
  const checks = report.checks ?? [];
  const text = checks
    .map((c) => `${c.ok ? "ok  " : c.skipped ? "skip" : "FAIL"} ${c.name}: ${c.detail}`)
    .join("\n");
  return { code: r.exitCode, ok: report.ok === true, checks, text };
}

const check = (p: ProveRun, name: string) => p.checks.find((c) => c.name === name);

describe("forge box prove on the sample projects", () => {
  it(
    "fails naming validate: test when the project's tests fail in the box (a header only in the host's copy)",
    async () => {
      const t = tempDir("forge-prove-make-");
      try {
        const repo = join(t.dir, "repo");
        // The header is ignored by git: the host's working copy has it, a clean clone not.
        makeProjectRepo(TICKETS.make, repo, {
          mutate: (dir) => appendFileSync(join(dir, ".gitignore"), "tests/check.h\n"),
        });
        execFileSync("make", ["test"], { cwd: repo, stdio: "pipe" }); // passes on the host
        const p = await proveCli(repo, t.dir);
        const test = check(p, "validate: test");
        expect(
          test,
          `no "validate: test" check: the repository's forge.yml was not read\n${p.text}`,
        ).toMatchObject({ ok: false });
        expect(test?.detail, p.text).toMatch(/check\.h/);
        expect(p.ok, p.text).toBe(false);
        expect(p.code, p.text).toBe(1);
        expect(test?.fix, p.text).toContain("make test");
      } finally {
        t.cleanup();
      }
    },
    CHAIN_TIMEOUT_MS,
  );

  it(
    "a setup that writes (npm ci from the preset): the proof runs it and passes, and so does a run",
    async () => {
      const t = tempDir("forge-prove-node-");
      try {
        const repo = join(t.dir, "repo");
        makeProjectRepo(TICKETS["node-lock"], repo);
        const p = await proveCli(repo, t.dir);
        expect(
          check(p, "setup: npm ci"),
          `the preset's setup was not proved\n${p.text}`,
        ).toMatchObject({ ok: true });
        expect(check(p, "validate: test"), p.text).toMatchObject({ ok: true });
        expect(p.ok, p.text).toBe(true);
        expect(p.code, p.text).toBe(0);
      } finally {
        t.cleanup();
      }
      const r = await runProject(server, TICKETS["node-lock"], { chain: "review" });
      try {
        expect(r.final.state, outcome(r)).toBe("passed");
      } finally {
        await r.f.cleanup();
      }
    },
    CHAIN_TIMEOUT_MS,
  );

  it(
    "a setup that writes outside the workspace (npm link): the proof fails naming it, and so does a run",
    async () => {
      const forgeYml = [
        "setup:",
        "  - npm ci",
        "  - npm link",
        "validate:",
        "  test:",
        "    run: npm test",
        "",
      ].join("\n");
      const mutate = (dir: string) => {
        mkdirSync(join(dir, ".github"), { recursive: true });
        writeFileSync(join(dir, ".github", "forge.yml"), forgeYml);
      };
      const t = tempDir("forge-prove-link-");
      try {
        const repo = join(t.dir, "repo");
        makeProjectRepo(TICKETS["node-lock"], repo, { mutate });
        const p = await proveCli(repo, t.dir);
        expect(p.ok, `the proof passed a setup no run can do\n${p.text}`).toBe(false);
        expect(p.code, p.text).toBe(1);
        expect(check(p, "setup: npm link"), p.text).toMatchObject({ ok: false });
        expect(check(p, "setup: npm link")?.detail, p.text).toMatch(/EROFS|EACCES|read-only/);
      } finally {
        t.cleanup();
      }
      const r = await runProject(server, TICKETS["node-lock"], { chain: "change", mutate });
      try {
        expect(r.final.state, outcome(r)).not.toBe("passed");
        expect(outcome(r)).toContain("npm link");
      } finally {
        await r.f.cleanup();
      }
    },
    CHAIN_TIMEOUT_MS,
  );
});
