// A failed run explains itself on the terminal: `forge run`'s end and `forge status` show the
// failing command's output (its tail, secrets redacted), `forge logs` the agent's transcript
// as text, and both show what each step cost.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { ensureBuilt } from "../harness/build.js";
import { gitIn } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";
import { demoRepo, forge, runIdOf, sandbox } from "./cli-kit.js";

let model: ModelServer;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  ensureBuilt();
  model = await startModelServer(demoScript());
});
afterAll(async () => model.close());
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("a run that fails in verify", () => {
  it("shows verify's output, the transcript and the cost", async () => {
    const s = sandbox();
    cleanups.push(s.cleanup);
    const env = {
      ...s.env,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
    };
    const repo = await demoRepo(s);
    const token = fake.githubToken();
    // The token is put together when verify runs: no file of the repository holds it.
    writeFileSync(
      join(repo, "scripts", "verify.sh"),
      "#!/bin/sh\n" +
        'echo "checking the greeting"\n' +
        `echo "VERIFY: the greeting lacks a wave; token ${token.slice(0, 10)}$(printf '%s' '${token.slice(10)}')"\n` +
        "exit 3\n",
    );
    gitIn(repo, "commit", "-qam", "a verify that fails");
    model.setScript(demoScript());
    const run = await forge(["run", "--repo", repo, "--task", "Greet louder"], env);
    expect(run.code).toBe(1);
    const id = runIdOf(run.stdout);
    for (const text of [run.stdout, (await forge(["status", id], env)).stdout]) {
      expect(text).toMatch(/builder\s+FAIL/);
      expect(text).toContain("scripts/verify.sh (exit 3):");
      expect(text).toContain("| VERIFY: the greeting lacks a wave; token");
      expect(text).not.toContain(token);
      expect(text).toMatch(/architect\s+PASS\s+\$\d+\.\d{4} · \d+ in, \d+ out/);
      expect(text).toMatch(/total\s+\$\d+\.\d{4} · /);
      expect(text).toContain(`forge logs ${id.slice(0, 12)} builder`);
    }
    const logs = await forge(["logs", id.slice(0, 12), "builder"], env);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/^=== builder, attempt 1 \(\d+ turns, \d+ bytes\) ===$/m);
    expect(logs.stdout).toContain("→ Bash: cat .env.example .env");
    expect(logs.stdout).toMatch(/← REFUSED: .*forge guard/);
    expect(logs.stdout).toContain("→ Bash: make test");
    expect(logs.stdout).toContain("← sh tests/test.sh");
    expect(logs.stdout).toMatch(/── result: success, \d+ turns, \$\d+\.\d{4}/);
    expect(logs.stdout).toContain("verdict: PASS");
    expect(logs.stdout).not.toContain('{"type":');
    // Every role, or none that has not run.
    const all = await forge(["logs", id], env);
    expect(all.stdout).toContain("=== architect, attempt 1");
    expect((await forge(["logs", id, "reviewer"], env)).code).toBe(1);
    expect((await forge(["logs", id, "janitor"], env)).code).toBe(2);
  }, 240_000);
});
