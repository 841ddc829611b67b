/**
 * Probot's own testing pattern for the handler tests: `new Probot({ githubToken: "test" })`,
 * `probot.receive()`, nock with the net disconnected, and every request the app sends
 * checked against GitHub's OpenAPI description (mockGitHub). Behind nock sits a stateful
 * fake (github-state.ts). The rest is real: the SQLite journal in a temp dir, the engine,
 * the reporter, the gatekeeper with real seals, a bare git repository playing GitHub's
 * git side, mirrors, policy and snapshots. Only the step verdicts are scripted.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pino from "pino";
import { Probot, ProbotOctokit } from "probot";
import { forgeApp } from "../../src/app/app.js";
import { branchLease } from "../../src/app/branch-plan.js";
import { composeServices } from "../../src/app/compose.js";
import { probotInstallations } from "../../src/app/installations.js";
import type { AppServices, BoxGate } from "../../src/app/services.js";
import type { Clock } from "../../src/chain/ports.js";
import { git, gitLine } from "../../src/runner/git.js";
import { openJournal, type SqliteJournal } from "../../src/store/sqlite-journal.js";
import { memoryLogger } from "../chain/engine-harness.js";
import { REPO_ROOT } from "../harness/claude-run.js";
import { type GitHubMock, mockGitHub, testOctokitOptions } from "../harness/openapi-check.js";
import { GitStepRunner } from "./git-step-runner.js";
import { createGitHubState, type GitHubState } from "./github-state.js";
import { OWNER, REPO } from "./payloads.js";

export interface AppKitOptions {
  permissions?: Record<string, string>;
  trusted?: string[];
  boxGate?: BoxGate;
  clock?: Clock;
  /** Extra files in the repository's default branch (e.g. .github/forge.yml). */
  files?: Record<string, string>;
  /** Answers cannot be sealed (as in the Action without a gate_secret): why. */
  unsealable?: string;
}

export interface AppKit {
  probot: Probot;
  services: AppServices;
  store: SqliteJournal;
  state: GitHubState;
  gh: GitHubMock;
  runner: GitStepRunner;
  logger: ReturnType<typeof memoryLogger>;
  bare: string;
  baseSha: string;
  receive(name: string, payload: Record<string, unknown>, id?: string): Promise<string>;
  /** Commit `files` on `branch` (from main, or from the branch's tip) and push it. */
  pushBranch(branch: string, files: Record<string, string>): Promise<string>;
  /** Wait until the queue, every drive and every report is done. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** The quality floor needs a `test` control (R8.2). */
export const FORGE_YML = 'validate:\n  test:\n    run: "true"\n';

const FILES: Record<string, string> = {
  "README.md": "# widgets\n",
  "greet.sh": '#!/bin/sh\necho "Hello, $1"\n',
  ".github/forge.yml": FORGE_YML,
};

export async function createAppKit(options: AppKitOptions = {}): Promise<AppKit> {
  const root = mkdtempSync(join(tmpdir(), "forge-app-"));
  const gitBase = join(root, "git");
  const bare = join(gitBase, OWNER, `${REPO}.git`);
  const src = join(root, "src");
  mkdirSync(src, { recursive: true });
  for (const [file, text] of Object.entries({ ...FILES, ...options.files })) {
    mkdirSync(dirname(join(src, file)), { recursive: true });
    writeFileSync(join(src, file), text);
  }
  await git(["init", "--quiet", "--initial-branch=main"], { cwd: src });
  await git(["add", "-A"], { cwd: src });
  await git(["commit", "--quiet", "-m", "initial"], { cwd: src });
  const baseSha = await gitLine(["rev-parse", "HEAD"], { cwd: src });
  mkdirSync(dirname(bare), { recursive: true });
  await git(["clone", "--quiet", "--bare", src, bare], { cwd: root });

  const forgeHome = join(root, "home");
  mkdirSync(forgeHome, { recursive: true });
  const store = openJournal(join(forgeHome, "journal.db"));
  const state = createGitHubState();
  for (const [login, perm] of Object.entries(options.permissions ?? { alice: "write" })) {
    state.permissions.set(login, perm);
  }
  // Requests are checked against the description; answers are not: the harness's response
  // check refuses `conclusion: null` (nullable + enum), which is what GitHub really sends for
  // a check run that is not completed.
  const gh = mockGitHub({ validateResponses: false });
  for (const method of ["GET", "POST", "PATCH", "PUT", "DELETE"]) {
    gh.on(
      method,
      /.*/,
      (req) => {
        const query = new URLSearchParams(req.query).toString();
        return state.handle(req.method, `${req.pathname}${query ? `?${query}` : ""}`, req.body);
      },
      { times: 10_000, optional: true },
    );
  }
  const probot = new Probot({
    githubToken: "test",
    // A function, not an object: Probot's installation clients pass their own `throttle`
    // (with the installation id), which a plain defaults object would lose to (1 s per write).
    Octokit: ProbotOctokit.defaults((instance: Record<string, unknown>) => {
      const test = testOctokitOptions();
      return {
        ...instance,
        retry: test.retry,
        throttle: { ...(instance.throttle as object), ...(test.throttle as object) },
      };
    }),
    log: pino({ level: "silent" }),
  });
  const logger = memoryLogger();
  const runner = new GitStepRunner(forgeHome);
  // What the App gives the real runner's push (app-runner.ts → finish-run.ts).
  runner.branchLease = branchLease;
  const services = composeServices({
    settings: {
      installRoot: REPO_ROOT,
      forgeHome,
      env: { PATH: process.env.PATH },
      box: "bwrap",
      ownWork: false,
      autoProve: true,
      trusted: options.trusted ?? [],
      gitBase,
    },
    store,
    installations: probotInstallations(probot),
    gateKey: randomBytes(32),
    ...(options.unsealable ? { unsealable: options.unsealable } : {}),
    logger,
    runner,
    boxGate: options.boxGate ?? { check: async () => null },
    stickyDelayMs: 0,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await probot.load(forgeApp(services));
  await services.index.rebuild();

  let deliveries = 0;
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await services.queue.drain();
      await services.engine.idle();
      await services.reporter.idle();
    }
  };
  return {
    probot,
    services,
    store,
    state,
    gh,
    runner,
    logger,
    bare,
    baseSha,
    async receive(
      name,
      payload,
      id = `delivery-${++deliveries}-${randomBytes(4).toString("hex")}`,
    ) {
      await probot.receive({ id, name, payload } as never);
      return id;
    },
    settle,
    async pushBranch(branch, files) {
      const remote = await git(["ls-remote", "--heads", bare, branch], { cwd: src });
      await git(["fetch", "--quiet", bare, remote.stdout.trim() ? branch : "main"], { cwd: src });
      await git(["checkout", "--quiet", "-B", branch, "FETCH_HEAD"], { cwd: src });
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(src, file)), { recursive: true });
        writeFileSync(join(src, file), text);
      }
      await git(["add", "-A"], { cwd: src });
      await git(["commit", "--quiet", "-m", `change on ${branch}`], { cwd: src });
      await git(["push", "--quiet", "--force", bare, `HEAD:refs/heads/${branch}`], { cwd: src });
      return gitLine(["rev-parse", "HEAD"], { cwd: src });
    },
    async close() {
      try {
        await settle();
        gh.verify();
      } finally {
        gh.close();
        await store.close();
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
