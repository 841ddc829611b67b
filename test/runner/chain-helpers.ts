// Shared set-up for runner tests: a demo repo, a FORGE_HOME, the real claude binary behind a
// scripted model server, and the local stack (real SQLite, real bwrap, real git).
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type LocalStack, openLocalStack } from "../../src/cli/local/stack.js";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { demoScript } from "../../src/demo/demo-script.js";
import { installRoot } from "../../src/install-root.js";
import { loadProfiles } from "../../src/policy/index.js";
import { loadRepoPolicy, type RepoPolicy } from "../../src/policy/repo-policy.js";
import type { ChainKind } from "../../src/roles/role-names.js";
import { gitRunnerIn } from "../../src/runner/git-runner.js";
import { buildSnapshotContent } from "../../src/runner/snapshot-content.js";
import {
  type ModelServer,
  type Script,
  startModelServer,
  type Turn,
} from "../../src/scripted-model/server.js";
import { ensureBuilt } from "../harness/build.js";
import { tempDir } from "../helpers/git-repo.js";

export const root = installRoot();

/**
 * The scripted model server of one test file: the build is checked and the server started
 * before its tests, and closed after them. The returned object stands for the server once it
 * runs (use it inside tests and hooks, not at module level).
 */
export function useModelServer(script: Script = { turns: [] }): ModelServer {
  let server: ModelServer | undefined;
  beforeAll(async () => {
    ensureBuilt();
    server = await startModelServer(script);
  });
  afterAll(async () => server?.close());
  return new Proxy({} as ModelServer, {
    get(_target, key) {
      if (!server) throw new Error("the model server runs only inside this file's tests");
      const value: unknown = Reflect.get(server, key);
      return typeof value === "function" ? value.bind(server) : value;
    },
  });
}

export interface ChainFixture {
  dir: string;
  repo: string;
  forgeHome: string;
  policy: RepoPolicy;
  stack: LocalStack;
  cleanup(): Promise<void>;
}

export function modelEnv(server: ModelServer): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
    // Tokens a careless runner would leak into the agent: they must never get there.
    GITHUB_TOKEN: "ghs_forge_test_not_a_real_token",
    GIT_PAT: "forge-test-not-a-real-pat",
  };
}

export async function chainFixture(opts: {
  server: ModelServer;
  setupRepo?: (repo: string) => Promise<void> | void;
  profilesDir?: string;
  stepTimeoutMs?: number;
  box?: "bwrap" | "worktree";
  provider?: "claude";
  claudeBinary?: string;
}): Promise<ChainFixture> {
  const t = tempDir("forge-chain-");
  const repo = join(t.dir, "repo");
  await createDemoRepo(root, repo);
  await opts.setupRepo?.(repo);
  const forgeHome = join(t.dir, "forge-home");
  const policy = await loadRepoPolicy(repo, {
    git: gitRunnerIn(repo),
    profiles: loadProfiles(opts.profilesDir ?? join(root, "profiles")),
  });
  const { mkdirSync } = await import("node:fs");
  mkdirSync(forgeHome, { recursive: true });
  const stack = openLocalStack({
    root,
    forgeHome,
    env: modelEnv(opts.server),
    box: opts.box ?? "bwrap",
    ownWork: opts.box === "worktree",
    provider: "claude",
    policy,
    ...(opts.stepTimeoutMs ? { stepTimeoutMs: opts.stepTimeoutMs } : {}),
    ...(opts.claudeBinary ? { claudeBinary: opts.claudeBinary } : {}),
    ...(opts.profilesDir ? { profilesDir: opts.profilesDir } : {}),
  });
  return {
    dir: t.dir,
    repo,
    forgeHome,
    policy,
    stack,
    cleanup: async () => {
      await stack.close();
      t.cleanup();
    },
  };
}

export async function startChain(
  f: ChainFixture,
  chain: ChainKind = "change",
  task = { title: "Add the exclamation mark", body: "greet.sh must print 'Hello, NAME!'." },
  mutateSnapshot?: (content: Record<string, unknown>) => void,
) {
  const snapshotContent = await buildSnapshotContent({
    installRoot: root,
    remote: f.repo,
    ref: "main",
    provider: { name: "claude", version: "test" },
    config: f.policy.config,
  });
  mutateSnapshot?.(snapshotContent);
  return f.stack.engine.startRun({
    chain,
    task,
    repo: { remote: f.repo, baseRef: "main", ...(chain === "review" ? { headRef: "HEAD" } : {}) },
    snapshotContent,
    requestBudget: f.policy.config.budgets.requestBudget.value,
  });
}

/** The demo chain with one role's conversation replaced. */
/** An architect turn that asks the "greeting-style" clarification (R6.2) and so pauses the run. */
export function clarificationTurn(): Turn {
  return {
    structured: {
      verdict: "FAIL",
      summary: "A summary long enough for the schema. ".repeat(8),
      plan: { tasks: [{ objective: "wait", files: [], steps: ["ask"], verification: "n/a" }] },
      request: {
        id: "greeting-style",
        kind: "clarification",
        question: "Exclamation mark or a full stop?",
        context: "The ticket is ambiguous.",
      },
    },
  };
}

export function withRole(role: string, turns: Turn[], script: Script = demoScript()): Script {
  return {
    ...script,
    routes: (script.routes ?? []).map((r) =>
      r.marker === `forgechain step: ${role}` ? { ...r, turns } : r,
    ),
  };
}

export type FixtureOptions = Omit<Parameters<typeof chainFixture>[0], "server">;

/** Script the server, run one change chain to its end, and return what the journal holds. */
export async function runScripted(
  server: ModelServer,
  script: Script,
  fixture: FixtureOptions = {},
  mutateSnapshot?: (content: Record<string, unknown>) => void,
) {
  server.setScript(script);
  server.reset();
  const f = await chainFixture({ server, ...fixture });
  const run = await startChain(f, "change", undefined, mutateSnapshot);
  const final = await f.stack.engine.drive(run.id);
  const status = await f.stack.engine.status(run.id);
  const events = await f.stack.store.events(run.id);
  return { f, run, final, status, steps: status.steps, events };
}

/** A second process's view of a fixture's FORGE_HOME (a restart). */
export function reopenStack(f: ChainFixture, server: ModelServer): LocalStack {
  return openLocalStack({
    root,
    forgeHome: f.forgeHome,
    env: modelEnv(server),
    box: "bwrap",
    ownWork: false,
    provider: "claude",
    policy: f.policy,
  });
}
