// The world of the Actions end-to-end tests: the real `forge serve` with FORGE_RUNNER=actions, a
// fake GitHub on loopback (the API checked against GitHub's description, git through the real
// `git http-backend`) that, on `workflow_dispatch`, runs the bundled Action the way a runner
// would — its own RUNNER_TEMP, the Actions environment, a workflow token, an identity token
// service of a test OIDC issuer whose keys the App fetches — and the real claude in bwrap
// boxes on the scripted model.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JWTPayload } from "jose";
import {
  type ModelServer,
  type Script,
  startModelServer,
} from "../../src/scripted-model/server.js";
import { runnerEnv } from "../action/action-kit.js";
import { type FakeGitHubServer, startFakeGitHub } from "../app/fake-github-server.js";
import { createGitHubState, type Dispatch, type GitHubState } from "../app/github-state.js";
import { type ServeProcess, startServeProcess } from "../app/serve-process.js";
import { startIssuer, type TestIssuer } from "../github/oidc-issuer.js";
import { ensureBuilt } from "../harness/build.js";
import { REPO_ROOT } from "../harness/claude-run.js";
import { waitFor as waitUntil } from "../harness/wait-for.js";

export interface ActionsJob {
  dispatch: Dispatch;
  child: ChildProcess;
  code: Promise<number>;
  log: string[];
}

export interface ActionsWorld {
  root: string;
  /** The fake GitHub's repository OWNER/REPO, bare. */
  bare: string;
  state: GitHubState;
  fake: FakeGitHubServer;
  model: ModelServer;
  iss: TestIssuer;
  serves: ServeProcess[];
  jobs: ActionsJob[];
  /** What the "runner" does with a dispatch: run the Action, or never pick the job up. */
  runnerMode: "run" | "never";
  /** The newest App's address, which each job is given as forge_url. */
  appUrl: string;
  serveWithActions(name: string, env?: Record<string, string>): Promise<ServeProcess>;
  waitFor<T>(what: string, fn: () => T | undefined | null | false, ms?: number): Promise<T>;
  close(): Promise<void>;
}

/** The claims GitHub puts in a dispatched job's identity token. */
export function jobClaims(d: Dispatch, n: number): JWTPayload {
  const workflowRef = `${d.owner}/${d.repo}/.github/workflows/${d.workflow}@refs/heads/${d.ref}`;
  return {
    repository: `${d.owner}/${d.repo}`,
    repository_id: "1296269",
    repository_owner: d.owner,
    event_name: "workflow_dispatch",
    ref: `refs/heads/${d.ref}`,
    sha: "0".repeat(40),
    actor: "forgechain[bot]",
    run_id: String(9000 + n),
    run_attempt: "1",
    workflow_ref: workflowRef,
    job_workflow_ref: workflowRef,
    runner_environment: "github-hosted",
  };
}

/** One workflow run of the dispatched job, as the runner starts the action's step. */
function runJob(w: ActionsWorld, d: Dispatch): void {
  if (w.runnerMode === "never") return;
  const n = w.jobs.length + 1;
  const temp = join(w.root, `runner-${n}`);
  mkdirSync(temp, { recursive: true });
  const event = join(temp, "event.json");
  writeFileSync(
    event,
    JSON.stringify({
      inputs: d.inputs,
      ref: `refs/heads/${d.ref}`,
      repository: { full_name: `${d.owner}/${d.repo}` },
      workflow: `.github/workflows/${d.workflow}`,
    }),
  );
  const output = join(temp, "output");
  writeFileSync(output, "");
  // The workflow's own token: the fake GitHub accepts it for the API and for git.
  const token = `ghs_${randomBytes(18).toString("hex")}`;
  w.state.tokens.push(token);
  const id = w.iss.job(jobClaims(d, n));
  const env = {
    ...runnerEnv({
      host: w.fake.host,
      root: REPO_ROOT,
      temp,
      eventName: "workflow_dispatch",
      event,
      runId: String(9000 + n),
      token,
      modelUrl: w.model.url,
      output,
    }),
    INPUT_FORGE_URL: w.appUrl,
    ACTIONS_ID_TOKEN_REQUEST_URL: id.url,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: id.token,
  };
  const log: string[] = [];
  const child = spawn(process.execPath, [join(REPO_ROOT, "action", "dist", "index.js")], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c) => log.push(String(c)));
  child.stderr?.on("data", (c) => log.push(String(c)));
  const code = new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  w.jobs.push({ dispatch: d, child, code, log });
}

/** What a timed-out wait shows: the API calls, the comments, the App's and the jobs' logs. */
function tail(w: ActionsWorld): string[] {
  const logs = [...w.serves.flatMap((s) => s.logs), ...w.jobs.flatMap((j) => j.log)];
  const api = w.fake.api.map((r) => `${r.status} ${r.method} ${r.pathname}`);
  const said = w.state.comments.map((c) => `#${c.issue}: ${c.body.slice(0, 600)}`);
  return [...api, ...said, ...logs].slice(-80).map((l) => l.slice(0, 600));
}

/**
 * The world, its repository made by `repository` under the world's root (it returns the git
 * root the fake GitHub serves and the bare repository in it), the model playing `script`.
 */
export async function startActionsWorld(options: {
  prefix: string;
  repository: (root: string) => Promise<{ gitRoot: string; bare: string }>;
  script: Script;
}): Promise<ActionsWorld> {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), options.prefix));
  const { gitRoot, bare } = await options.repository(root);
  const state = createGitHubState();
  state.permissions.set("alice", "write");
  const fake = await startFakeGitHub({ state, gitRoot });
  const model = await startModelServer(options.script);
  const iss = await startIssuer();
  const w: ActionsWorld = {
    root,
    bare,
    state,
    fake,
    model,
    iss,
    serves: [],
    jobs: [],
    runnerMode: "run",
    appUrl: "",
    async serveWithActions(name, env = {}) {
      const s = await startServeProcess({
        gheHost: fake.host,
        forgeHome: join(root, name),
        modelUrl: model.url,
        env: { FORGE_RUNNER: "actions", FORGE_ACTIONS_OIDC_ISSUER: iss.issuer, ...env },
      });
      w.serves.push(s);
      w.appUrl = `http://127.0.0.1:${s.port}`;
      return s;
    },
    waitFor: (what, fn, ms) => waitUntil(what, fn, () => tail(w), ms),
    async close() {
      for (const j of w.jobs) if (j.child.exitCode === null) j.child.kill("SIGKILL");
      await Promise.all(w.serves.map((s) => s.stop()));
      await fake.close();
      await model.close();
      await new Promise<void>((resolve) => iss.server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  state.onDispatch = (d) => runJob(w, d);
  return w;
}
