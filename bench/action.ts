// The packaged Action beside `forge run`, on the demo repository with an instant scripted model
// (the chain's own overhead, as in chain.ts), against a fake GitHub on loopback with the real
// `git http-backend`: the Action's cold start — process start to its first request to GitHub —
// and its whole job on a fresh runner (the box proof included, as the repository's first job
// has to prove); a job on another issue on another fresh runner, which checks the shared proof
// instead; and `forge run`'s whole command on a clone of the same repository, once proved. Each
// timed job must have PASSed.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDemoRepo } from "../src/demo/demo-repo.js";
import { installRoot } from "../src/install-root.js";
import { startModelServer } from "../src/scripted-model/server.js";
import { parseOutputFile, runnerEnv, writeEvent } from "../test/action/action-kit.js";
import { startFakeGitHub } from "../test/app/fake-github-server.js";
import { createGitHubState } from "../test/app/github-state.js";
import { issueLabeled, OWNER, REPO } from "../test/app/payloads.js";
import { instantScript } from "./chain.js";

const TOKEN = "ghs_forgebenchworkflowtoken000000000000";

function spawnTimed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  firstContact?: () => boolean,
): Promise<{ code: number; ms: number; firstMs: number | null; out: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let firstMs: number | null = null;
    const watch = firstContact
      ? setInterval(() => {
          if (firstMs === null && firstContact()) firstMs = performance.now() - t0;
        }, 2)
      : null;
    let out = "";
    const child = execFile(command, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error) => {
      if (watch) clearInterval(watch);
      resolve({
        code: error ? Number((error as { code?: number }).code ?? 1) : 0,
        ms: Math.round(performance.now() - t0),
        firstMs: firstMs === null ? null : Math.round(firstMs),
        out,
      });
    });
    child.stdout?.on("data", (d) => {
      out += d;
    });
    child.stderr?.on("data", (d) => {
      out += d;
    });
  });
}

export async function benchAction(): Promise<object> {
  const root = installRoot();
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-action-"));
  const model = await startModelServer(instantScript());
  const state = createGitHubState();
  state.permissions.set("alice", "write");
  state.tokens.push(TOKEN);
  const src = join(dir, "src");
  await createDemoRepo(root, src);
  const bare = join(dir, "git", OWNER, `${REPO}.git`);
  mkdirSync(join(dir, "git", OWNER), { recursive: true });
  execFileSync("git", ["clone", "--quiet", "--bare", src, bare]);
  const fake = await startFakeGitHub({ state, gitRoot: join(dir, "git") });
  try {
    /** One workflow run on a fresh runner (its own RUNNER_TEMP) for a labeled issue: must PASS. */
    const job = async (runId: string, number: number) => {
      const temp = join(dir, `runner-${runId}`);
      mkdirSync(temp);
      const event = writeEvent(temp, issueLabeled({ sender: "alice", number }));
      const output = join(temp, "output");
      writeFileSync(output, "");
      const before = fake.api.length + fake.git.length;
      const r = await spawnTimed(
        process.execPath,
        [join(root, "action", "dist", "index.js")],
        runnerEnv({
          host: fake.host,
          root,
          temp,
          eventName: "issues",
          event,
          runId,
          token: TOKEN,
          modelUrl: model.url,
          output,
        }),
        () => fake.api.length + fake.git.length > before,
      );
      if (parseOutputFile(readFileSync(output, "utf8")).verdict !== "PASS") {
        throw new Error(`the Action's job did not PASS (exit ${r.code}): ${r.out.slice(-2000)}`);
      }
      return r;
    };
    // The repository's first job proves the box and shares the proof; a job on another issue,
    // on another fresh runner, checks that proof against its runner instead of proving.
    const action = await job("1", 7);
    const shared = await job("2", 8);
    if (!shared.out.includes("from refs/forge/proof is checked against this runner")) {
      throw new Error(`the second job did not use the shared proof: ${shared.out.slice(-2000)}`);
    }
    // forge run on a clone of the same repository: the first run proves the box, the second is
    // the figure beside the Action's.
    const forgeEnv = {
      PATH: `${join(root, "node_modules", ".bin")}:/usr/local/bin:/usr/bin:/bin`,
      HOME: join(dir, "forge-user"),
      FORGE_HOME: join(dir, "forge-home"),
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "forge-bench-not-a-real-key",
    };
    mkdirSync(forgeEnv.HOME);
    const clone = join(dir, "clone");
    execFileSync("git", ["clone", "--quiet", bare, clone]);
    const forge = [join(root, "bin", "forge.js"), "run", "--repo", clone, "--task", "bench"];
    const first = await spawnTimed(process.execPath, forge, forgeEnv);
    const second = await spawnTimed(process.execPath, forge, forgeEnv);
    for (const r of [first, second]) {
      if (r.code !== 0)
        throw new Error(`forge run did not PASS (exit ${r.code}): ${r.out.slice(-2000)}`);
    }
    return {
      description:
        "the demo repository, an instant model: the Action's first job on a fresh runner (box proof included), a job on another issue on another fresh runner (the shared proof checked, not redone), and forge run's command (first proves, second is proved)",
      action_cold_start_ms: action.firstMs,
      action_job_ms: action.ms,
      action_job_shared_proof_ms: shared.ms,
      forge_run_first_ms: first.ms,
      forge_run_proved_ms: second.ms,
    };
  } finally {
    await fake.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
