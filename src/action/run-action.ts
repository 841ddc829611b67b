// The packaged Action's whole job (R10.3), behind its thin entry (main.ts): read the inputs and
// the event, claim this issue's journal from the repository, compose the App's services over the
// workflow's token, hand the event to the App's own handler (`accept`), wait until the run it
// started or continued stands still (passed, failed, paused), write the journal back, and tell
// the workflow: outputs, job summary, exit code. Nothing here decides what the App decides.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { accept } from "../app/app.js";
import { composeServices } from "../app/compose.js";
import { type ForgeEvent, parseWebhook } from "../app/events.js";
import { gitAuthEnv, repoRemote } from "../app/git-auth.js";
import { mirrorDirFor } from "../app/repo-mirror.js";
import type { DeploymentSettings } from "../app/services.js";
import { boxKeyFor } from "../boxes/prove.js";
import type { RunRecord } from "../chain/types.js";
import { DEFAULT_DEPLOYMENT } from "../policy/index.js";
import { registerKnownSecrets } from "../secrets/index.js";
import { openJournal } from "../store/sqlite-journal.js";
import {
  type ActionInputs,
  type ActionRuntime,
  readInputs,
  readRuntime,
  workflowSecrets,
} from "./inputs.js";
import { jobLogger, stepGroups } from "./job-log.js";
import { type ActionResult, outcome, result } from "./outcome.js";
import { exportSharedProof, importSharedProof, type SharedProofDeps } from "./shared-proof.js";
import { claimState, StateBusyError, stateRef } from "./state.js";
import { runStepJob, stepDispatchOf } from "./step-job.js";
import { tokenInstallations } from "./token-installations.js";
import { workflowCommand } from "./workflow-io.js";

type Env = Record<string, string | undefined>;

export type { ActionResult } from "./outcome.js";

export interface ActionDeps {
  env: Env;
  /** forgechain's install root (settings/, roles/, dist/, bin/ …). */
  installRoot: string;
  /** The claude version forgechain pins (package.json). */
  pinnedClaude: string;
  /** The job's log (workflow commands included). */
  out(text: string): void;
  /** Preparing the runner (user namespaces, the claude CLI): PATH's directory to add, if any. */
  prepare?(inputs: ActionInputs, runtime: ActionRuntime): Promise<string | null>;
  /** How often to look whether the run stands still (ms). */
  pollMs?: number;
}

const MAX_EVENT_BYTES = 25 * 1024 * 1024;

export async function runAction(d: ActionDeps): Promise<ActionResult> {
  const inputs = readInputs(d.env, d.pinnedClaude);
  const runtime = readRuntime(d.env);
  registerKnownSecrets([inputs.githubToken, ...workflowSecrets(d.env)]);
  const payload = readPayload(runtime);
  // Dispatched by the App to run one step of its run: step mode, nothing else.
  const dispatch = stepDispatchOf(runtime.eventName, payload);
  if (dispatch) {
    const extraPath = (await d.prepare?.(inputs, runtime)) ?? null;
    return runStepJob(d, inputs, runtime, dispatch, extraPath);
  }
  const ev = parseWebhook(
    runtime.eventName,
    payload,
    `actions-${runtime.runId}-${runtime.runAttempt}`,
    { workflow: true },
  );
  const number = subjectOf(ev);
  if (number === null && runtime.eventName === "workflow_dispatch") {
    // Asked for by hand: a dispatch forgechain cannot act on is an error, never a quiet pass.
    const why = ev.kind === "ignored" ? ev.reason : ev.kind;
    d.out(workflowCommand("error", `forgechain: ${why}`));
    return result(1, "REFUSED", {
      verdict: "REFUSED",
      subject: null,
      steps: [],
      next: `${why}. Nothing ran`,
    });
  }
  if (number === null) {
    d.out(
      workflowCommand(
        "notice",
        `forgechain: nothing to do for ${runtime.eventName} (${ev.kind === "ignored" ? ev.reason : ev.kind})`,
      ),
    );
    return result(0, "REFUSED", null);
  }
  const extraPath = (await d.prepare?.(inputs, runtime)) ?? null;
  const home = join(runtime.runnerTemp, "forgechain");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const [owner = "", name = ""] = runtime.repository.split("/");
  const auth = gitAuthEnv(inputs.githubToken);
  let claimed: Awaited<ReturnType<typeof claimState>>;
  try {
    claimed = await claimState({
      target: {
        remote: repoRemote(runtime.serverUrl, owner, name),
        ref: stateRef(number),
        scratch: join(home, "state.git"),
        env: auth,
      },
      dir: home,
      holder: { runId: runtime.runId, attempt: runtime.runAttempt, actor: runtime.actor },
    });
  } catch (error) {
    if (!(error instanceof StateBusyError)) throw error;
    d.out(workflowCommand("notice", `forgechain: ${error.message}`));
    return result(0, "REFUSED", null);
  }
  const store = openJournal(claimed.journalFile);
  const startedAt = new Date().toISOString();
  const groups = stepGroups(d.out);
  const sharing = await shareProof(d, inputs, home, auth, runtime, store);
  try {
    const s = composeServices({
      settings: settingsFor(d, inputs, runtime, home, extraPath),
      store,
      installations: tokenInstallations({
        token: inputs.githubToken,
        apiUrl: runtime.apiUrl,
        graphqlUrl: runtime.graphqlUrl,
        log: { warn: (m) => d.out(workflowCommand("warning", m)) },
      }),
      gateKey: gateKeyOf(inputs),
      ...(inputs.gateSecret ? {} : { unsealable: NO_GATE_SECRET }),
      logger: jobLogger(d.out),
      observer: groups,
      stickyDelayMs: 0,
      jobConcurrency: 1,
      maxParallel: 1,
    });
    const refusals: string[] = [];
    s.commandReplies = (reply) => {
      if (reply.refused) refusals.push(reply.text);
    };
    // The journal came from the repository: its runs, for /forge commands and one-run-per-issue.
    await s.index.rebuild();
    // A run a killed workflow run left running continues here (its claim had gone stale).
    await s.engine.recover();
    const accepted = await accept(ev, s);
    await s.queue.drain();
    await standStill(store, d.pollMs ?? 500);
    await s.reporter.idle();
    groups.close();
    const run = (await s.index.runsOn(`${owner}/${name}`, number))[0] ?? null;
    // Not forge's (a bot, a comment that is no command): nothing to do, the step passes. Taken
    // but no run to show: the App refused it and said why on the issue; the step fails.
    if (accepted === "dropped") return result(0, "REFUSED", null);
    if (!run) {
      d.out(
        workflowCommand(
          "error",
          `forgechain refused this ${runtime.eventName} event: its reply on #${number}, or the error above, says why`,
        ),
      );
      return result(1, "REFUSED", {
        verdict: "REFUSED",
        subject: { number, url: `${runtime.serverUrl}/${runtime.repository}/issues/${number}` },
        steps: [],
        next: `nothing ran; forgechain's reply on #${number}, or the job's log, says why`,
      });
    }
    const done = await outcome(run, store, runtime, inputs, number);
    // An answer this job refused (unsealable, or its seal did not hold) fails the step: the
    // human who asked sees a red job, not only a reply on the issue.
    const refused = (await store.events(run.id))
      .filter((e) => e.type === "seal.refused" && e.at >= startedAt)
      .map((e) => String(e.data.reason ?? "refused"));
    if (refused.length > 0) {
      for (const why of refused)
        d.out(workflowCommand("error", `forgechain refused the answer: ${why}`));
      const next = `the answer was refused: ${refused.join("; ")}`;
      return { ...done, exitCode: 1, summary: done.summary && { ...done.summary, next } };
    }
    // Any other command it refused (already answered, nothing to resume, …) fails the step too.
    if (refusals.length > 0) {
      for (const why of refusals) {
        d.out(workflowCommand("error", `forgechain refused the command: ${why.split("\n")[0]}`));
      }
      const next = `the command was refused: ${refusals.map((r) => r.split("\n")[0]).join("; ")}`;
      return { ...done, exitCode: 1, summary: done.summary && { ...done.summary, next } };
    }
    return done;
  } finally {
    await sharing?.done();
    await store.close();
    await claimed.release();
  }
}

/**
 * The repository's shared box proof (shared-proof.ts), imported into this job's journal now;
 * `done` shares a newer one this job made. Only with gate_secret: the proof is signed with it.
 * Failing to read or write it costs a proof, never the job.
 */
async function shareProof(
  d: ActionDeps,
  inputs: ActionInputs,
  home: string,
  env: Record<string, string>,
  runtime: ActionRuntime,
  store: SharedProofDeps["store"],
): Promise<{ done(): Promise<void> } | null> {
  if (!inputs.gateSecret) return null;
  const [owner = "", name = ""] = runtime.repository.split("/");
  const warn = (what: string) => (error: unknown) =>
    d.out(workflowCommand("warning", `forgechain: ${what}: ${(error as Error).message}`));
  const deps: SharedProofDeps = {
    target: {
      remote: repoRemote(runtime.serverUrl, owner, name),
      scratch: join(home, "state.git"),
      env,
    },
    key: gateKeyOf(inputs),
    store,
    // The path the box gate keys this repository's proof by (the mirror under FORGE_HOME).
    boxKey: boxKeyFor("bwrap", mirrorDirFor(join(realpathSync(home), "home"), owner, name)),
    log: (line) => d.out(`forgechain: ${line}\n`),
  };
  const seen = await importSharedProof(deps).catch(warn("reading the shared box proof"));
  if (!seen) return null;
  return { done: () => exportSharedProof(deps, seen).catch(warn("sharing the box proof")) };
}

function readPayload(runtime: ActionRuntime): unknown {
  const text = readFileSync(runtime.eventPath);
  if (text.length > MAX_EVENT_BYTES)
    throw new Error(`GITHUB_EVENT_PATH is larger than ${MAX_EVENT_BYTES} bytes`);
  try {
    return JSON.parse(text.toString("utf8"));
  } catch (error) {
    throw new Error(`GITHUB_EVENT_PATH does not hold JSON: ${(error as Error).message}`);
  }
}

function subjectOf(ev: ForgeEvent): number | null {
  switch (ev.kind) {
    case "issue-labeled":
    case "comment":
      return ev.issue.number;
    case "dispatch":
      return ev.issueNumber;
    case "pull-request":
      return ev.pull.number;
    default:
      return null;
  }
}

function settingsFor(
  d: ActionDeps,
  inputs: ActionInputs,
  runtime: ActionRuntime,
  home: string,
  extraPath: string | null,
): DeploymentSettings {
  const env: Env = { ...d.env };
  // The model credential from the inputs, as `forge run` takes it from the environment.
  if (inputs.anthropicApiKey) env.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
  if (inputs.claudeCodeOauthToken) env.CLAUDE_CODE_OAUTH_TOKEN = inputs.claudeCodeOauthToken;
  if (extraPath) env.PATH = `${extraPath}:${env.PATH ?? "/usr/bin:/bin"}`;
  return {
    installRoot: d.installRoot,
    forgeHome: join(home, "home"),
    env,
    box: "bwrap",
    ownWork: false,
    autoProve: true,
    trusted: [],
    gitBase: runtime.serverUrl,
    deployment: {
      ...DEFAULT_DEPLOYMENT,
      labels: { change: inputs.triggerLabel, review: inputs.reviewLabel },
    },
  };
}

// Every human answer is sealed before anything acts on it, with a key the next workflow run
// holds too. Without one, a key that dies with the job would seal and check in one breath and
// prove nothing, so answers are refused and the reply says how to give the key.
const NO_GATE_SECRET =
  "answers to a run are sealed with the workflow's `gate_secret`, and this workflow gives forgechain none. Store a long random value (`openssl rand -hex 32`) as a repository secret, pass it to the action as `gate_secret` (from `secrets.FORGE_GATE_SECRET`, say), then comment again";

/** The seal key: from gate_secret (a repository secret), else one that dies with this job. */
export function gateKeyOf(inputs: Pick<ActionInputs, "gateSecret">): Buffer {
  return inputs.gateSecret
    ? createHash("sha256").update(`forgechain gate key\0${inputs.gateSecret}`).digest()
    : randomBytes(32);
}

/** Until no run of this journal is queued or running: the engine drives in the background. */
async function standStill(
  store: { listRuns(f: { states: RunRecord["state"][] }): Promise<RunRecord[]> },
  pollMs: number,
) {
  for (;;) {
    const moving = await store.listRuns({ states: ["queued", "running"] });
    if (moving.length === 0) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
