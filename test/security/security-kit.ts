// The chain fixture of the attack chains in test/security: the demo repository, a FORGE_HOME
// holding a deployment secret, a runner environment holding a canary variable, the real stack
// (real claude binary, bwrap boxes, git) — and what a run left: its outcome and run output.
// leak-search.ts and scripted-turns.ts are re-exported: the tests import this one file.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openLocalStack } from "../../src/cli/local/stack.js";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { loadProfiles } from "../../src/policy/index.js";
import { loadRepoPolicy } from "../../src/policy/repo-policy.js";
import { gitRunnerIn } from "../../src/runner/git-runner.js";
import type { ModelServer, Script } from "../../src/scripted-model/server.js";
import { tempDir } from "../helpers/git-repo.js";
import { type ChainFixture, modelEnv, root, startChain } from "../runner/chain-helpers.js";
import { forgeBranches, newCanary } from "./leak-search.js";

export * from "./leak-search.js";
export * from "./scripted-turns.js";

/** A directory on the host, outside FORGE_HOME and every box, for a canary file to appear in. */
export function hostCanaryFile(): { file: string; dir: string; cleanup: () => void } {
  const t = tempDir("forge-sec-host-");
  return { file: join(t.dir, "ran-on-the-host"), dir: t.dir, cleanup: t.cleanup };
}

export interface AttackCanaries {
  /** A value in the runner's own environment (the stack's env and the runner process's). */
  envName: string;
  envValue: string;
  /** A deployment secret file in FORGE_HOME and the value it holds. */
  forgeHomeFile: string;
  forgeHomeValue: string;
}

export interface AttackRun {
  f: ChainFixture;
  canaries: AttackCanaries;
  final: { id: string; state: string; branch?: string | null };
  status: Awaited<ReturnType<ChainFixture["stack"]["engine"]["status"]>>;
  steps: Awaited<ReturnType<ChainFixture["stack"]["engine"]["status"]>>["steps"];
  events: Array<{ type: string; data: Record<string, unknown> }>;
}

export interface AttackOptions {
  setupRepo?: (repo: string) => void | Promise<void>;
  /** Extra variables of the runner's environment (e.g. the model key). */
  env?: Record<string, string>;
}

/** A script, or one built from the run's canaries (e.g. to name the FORGE_HOME secret's path). */
export type AttackScript = Script | ((canaries: AttackCanaries) => Script);

/**
 * The demo repository (plus `setupRepo`), a FORGE_HOME holding a deployment secret, and the
 * local stack whose runner environment holds a canary variable.
 */
async function attackFixture(
  server: ModelServer,
  opts: AttackOptions,
): Promise<{ f: ChainFixture; canaries: AttackCanaries }> {
  const t = tempDir("forge-sec-chain-");
  try {
    const repo = join(t.dir, "repo");
    await createDemoRepo(root, repo);
    await opts.setupRepo?.(repo);
    const forgeHome = join(t.dir, "forge-home");
    mkdirSync(forgeHome, { recursive: true, mode: 0o700 });
    const canaries: AttackCanaries = {
      envName: "FORGE_SEC_HOST_CANARY",
      envValue: newCanary("HOSTENV"),
      forgeHomeFile: join(forgeHome, "deploy-secret.key"),
      forgeHomeValue: newCanary("FORGEHOME"),
    };
    writeFileSync(canaries.forgeHomeFile, `${canaries.forgeHomeValue}\n`, { mode: 0o600 });
    const policy = await loadRepoPolicy(repo, {
      git: gitRunnerIn(repo),
      profiles: loadProfiles(join(root, "profiles")),
    });
    const stack = openLocalStack({
      root,
      forgeHome,
      env: { ...modelEnv(server), [canaries.envName]: canaries.envValue, ...opts.env },
      box: "bwrap",
      ownWork: false,
      provider: "claude",
      policy,
    });
    const cleanup = async () => {
      await stack.close();
      t.cleanup();
    };
    return { f: { dir: t.dir, repo, forgeHome, policy, stack, cleanup }, canaries };
  } catch (error) {
    t.cleanup();
    throw error;
  }
}

/**
 * One change chain like chain-helpers' runScripted, with canaries planted: a variable in the
 * runner's environment (the stack's, and this process's, which the runner's own git inherits)
 * and a deployment secret file in FORGE_HOME. The caller cleans up (`r.f.cleanup()`).
 */
export async function runAttack(
  server: ModelServer,
  script: AttackScript,
  opts: AttackOptions = {},
): Promise<AttackRun> {
  const { f, canaries } = await attackFixture(server, opts);
  server.setScript(typeof script === "function" ? script(canaries) : script);
  server.reset();
  process.env[canaries.envName] = canaries.envValue;
  try {
    const run = await startChain(f);
    const final = await f.stack.engine.drive(run.id);
    const status = await f.stack.engine.status(run.id);
    const events = await f.stack.store.events(run.id);
    return { f, canaries, final, status, steps: status.steps, events };
  } catch (error) {
    await f.cleanup();
    throw error;
  } finally {
    delete process.env[canaries.envName];
  }
}

/** The run's end in one line, for assertion messages: states and every step's reasons. */
export function outcome(r: AttackRun): string {
  const steps = r.steps.map(
    (s) =>
      `${s.role}=${s.state}${s.decision ? ` (${s.decision.reasons.join("; ").slice(0, 240)})` : ""}`,
  );
  return `run ${r.final.state}; ${steps.join(", ")}; pushed: ${forgeBranches(r.f.repo).join(", ") || "nothing"}`;
}

/** Every run output text the run left: under FORGE_HOME and on the pushed branch. */
export function runOutputs(r: AttackRun): string[] {
  const texts: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > 6 || !existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(path, depth + 1);
      else if (e.isFile() && /^run-output.*\.md$/.test(e.name)) {
        texts.push(readFileSync(path, "utf8"));
      }
    }
  };
  walk(join(r.f.forgeHome, "work", r.final.id), 0);
  for (const branch of forgeBranches(r.f.repo)) {
    try {
      texts.push(
        execFileSync("git", ["show", `${branch}:.forge/run-output-${r.final.id}.md`], {
          cwd: r.f.repo,
          encoding: "utf8",
        }),
      );
    } catch {
      // no run output on that branch
    }
  }
  return texts;
}

/** The events and step reasons as one text (the transcripts left out: they echo the script). */
export function verdictText(r: AttackRun): string {
  const events = r.events.filter((e) => !e.type.endsWith("step.transcript"));
  const reasons = r.steps.flatMap((s) => s.decision?.reasons ?? []);
  return `${JSON.stringify(events)}\n${reasons.join("\n")}`;
}

/** Everything passed and a forge/… branch reached the origin. */
export function passedAndPushed(r: AttackRun): boolean {
  return (
    r.final.state === "passed" &&
    r.steps.every((s) => s.state === "passed") &&
    forgeBranches(r.f.repo).length > 0
  );
}
