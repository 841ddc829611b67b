// The packaged Action in step mode (R10.2): a job the App dispatched with `workflow_dispatch`
// to run one role step of one of its runs. The job asks the App for the step's input with an
// identity token GitHub gave it for exactly that step, runs the step with the same local runner
// `forge serve` uses (its own clone, the bwrap boxes, the repository's setup), pushes the
// builder's work to the run's work ref with the workflow's token, and reports what it measured
// with a second token. It decides nothing: the App checks the token, recomputes the diff from
// the pushed work and judges the step.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { createAppRunner, frozenConfig } from "../app/app-runner.js";
import { gitAuthEnv, repoRemote } from "../app/git-auth.js";
import type { StepInput, StepResult } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { stepAudience } from "../github/index.js";
import {
  ensureBoxProof,
  fetchWork,
  git,
  handedState,
  isPushedWork,
  pushWork,
  takeHandedState,
  workRefOf,
} from "../runner/index.js";
import { openJournal } from "../store/sqlite-journal.js";
import type { ActionInputs, ActionRuntime } from "./inputs.js";
import { ActionInputError } from "./inputs.js";
import { jobLogger } from "./job-log.js";
import { type ActionResult, result } from "./outcome.js";
import { workflowCommand } from "./workflow-io.js";

type Env = Record<string, string | undefined>;

/** The step the App dispatched this job for (the dispatch's inputs). */
export interface StepDispatch {
  runId: string;
  index: number;
  attempt: number;
}

const DispatchInputs = z.object({
  forge_run: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
  forge_step: z.string().regex(/^\d{1,5}$/),
  forge_attempt: z.string().regex(/^\d{1,4}$/),
});

/** The App's step dispatch in a workflow_dispatch event, or null when the event is none. */
export function stepDispatchOf(eventName: string, payload: unknown): StepDispatch | null {
  if (eventName !== "workflow_dispatch") return null;
  const inputs = (payload as { inputs?: Record<string, unknown> } | null)?.inputs;
  if (!inputs || inputs.forge_run === undefined) return null;
  const parsed = DispatchInputs.safeParse(inputs);
  if (!parsed.success) {
    throw new ActionInputError(
      "the dispatch's forge_run, forge_step and forge_attempt are not a run id and two numbers: only forgechain's App dispatches this workflow with them",
    );
  }
  return {
    runId: parsed.data.forge_run,
    index: Number(parsed.data.forge_step),
    attempt: Number(parsed.data.forge_attempt),
  };
}

const JobInput = z.object({
  run: z.object({ id: z.string() }).passthrough(),
  index: z.number(),
  attempt: z.number(),
  job: z
    .object({
      chain: z.enum(["change", "review"]),
      role: z.enum(["architect", "builder", "reviewer", "security"]),
      task: z.unknown(),
      prior: z.array(z.unknown()),
      answers: z.array(z.unknown()),
      work: z.unknown().optional(),
      state: z.unknown().optional(),
    })
    .passthrough(),
});

export interface StepJobDeps {
  env: Env;
  installRoot: string;
  out(text: string): void;
  /** Requests to the App and the token service (default: fetch). */
  fetch?: typeof fetch;
}

export async function runStepJob(
  d: StepJobDeps,
  inputs: ActionInputs,
  runtime: ActionRuntime,
  dispatch: StepDispatch,
  extraPath: string | null,
): Promise<ActionResult> {
  const app = inputs.forgeUrl;
  if (!app) {
    throw new ActionInputError(
      "forge_url is empty: a step job reports to forgechain's App — set it to the App's public URL in the workflow",
    );
  }
  const http = d.fetch ?? fetch;
  const audience = stepAudience(dispatch.runId, dispatch.index, dispatch.attempt);
  const { runId, index, attempt } = dispatch;
  const where = `step ${index} (attempt ${attempt}) of run ${runId}`;
  const query = new URLSearchParams({ run: runId, index: String(index), attempt: String(attempt) });
  const asked = await http(`${app}/forge/step-input?${query}`, {
    headers: { authorization: `Bearer ${await idToken(d.env, audience, http)}` },
  });
  if (!asked.ok) {
    throw new Error(`the App refused ${where}'s input (${asked.status}): ${await message(asked)}`);
  }
  const given = JobInput.parse(await asked.json());
  const run = given.run as unknown as RunRecord;
  if (run.id !== runId || given.index !== index || given.attempt !== attempt) {
    throw new Error(`the App answered for another step than ${where}`);
  }
  d.out(`forgechain: running ${given.job.role}, ${where}\n`);
  const measured = await runOneStep(d, inputs, runtime, run, given, extraPath);
  const report = await http(`${app}/forge/step-report`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      token: await idToken(d.env, audience, http),
      runId,
      index,
      attempt,
      result: measured,
    }),
  });
  if (report.status !== 202) {
    throw new Error(
      `the App refused ${where}'s report (${report.status}): ${await message(report)}`,
    );
  }
  for (const f of measured.failures) d.out(workflowCommand("warning", `forgechain: ${f}`));
  d.out(`forgechain: reported ${given.job.role}, ${where}; the App judges it\n`);
  // The App's verdict comes later, on the run's checks; this job only ran and reported.
  const done = result(0, "REPORTED", null);
  return { ...done, outputs: { ...done.outputs, run_id: runId } };
}

type Given = z.infer<typeof JobInput>;

/** The step, run here as `forge serve` runs it, as the report's result. */
async function runOneStep(
  d: StepJobDeps,
  inputs: ActionInputs,
  runtime: ActionRuntime,
  given: RunRecord,
  input: Given,
  extraPath: string | null,
): Promise<Record<string, unknown> & { failures: string[] }> {
  const home = join(runtime.runnerTemp, "forgechain-step", "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const [owner = "", name = ""] = runtime.repository.split("/");
  const auth = gitAuthEnv(inputs.githubToken);
  // This runner's view of the repository; the run's own names stay the App's.
  let run: RunRecord = {
    ...given,
    repo: { ...given.repo, remote: repoRemote(runtime.serverUrl, owner, name) },
  };
  const runDir = join(home, "work", run.id);
  mkdirSync(runDir, { recursive: true });
  await takeHandedState(runDir, input.job.state);
  if (input.job.work !== undefined && input.job.work !== null) {
    if (!isPushedWork(input.job.work)) throw new Error("the App handed no usable work to review");
    await fetchWork(runDir, run, input.job.work, auth);
    // The builder's work is what this step reviews: the head of its run, here.
    run = { ...run, repo: { ...run.repo, headRef: input.job.work.sha } };
  }
  const env: Env = { ...d.env };
  if (inputs.anthropicApiKey) env.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
  if (inputs.claudeCodeOauthToken) env.CLAUDE_CODE_OAUTH_TOKEN = inputs.claudeCodeOauthToken;
  if (extraPath) env.PATH = `${extraPath}:${env.PATH ?? "/usr/bin:/bin"}`;
  const runner = createAppRunner({
    forgeHome: home,
    installRoot: d.installRoot,
    boxKind: "bwrap",
    ownWork: false,
    hostEnv: env,
    logger: jobLogger(d.out),
    remoteAuth: async () => auth,
  });
  const signal = new AbortController().signal;
  const progress = () => {};
  const unproved = await proveRunnerBox(d, home, run, env, auth);
  const prepared = unproved ? null : await runner.prepareRun?.({ run, signal, progress });
  let result: StepResult;
  if (unproved) {
    result = { failures: [unproved], events: [] };
  } else if (prepared && !prepared.ok) {
    result = { failures: prepared.reasons, events: prepared.events };
  } else {
    const step = input.job as unknown as Pick<
      StepInput,
      "chain" | "role" | "task" | "prior" | "answers"
    >;
    result = await runner.runStep({
      ...step,
      run,
      index: input.index,
      attempt: input.attempt,
      signal,
      progress,
    });
    result = { ...result, events: [...(prepared?.events ?? []), ...result.events] };
  }
  const work =
    input.job.role === "builder" && result.failures.length === 0
      ? await pushWork(runDir, workRefOf(run.id, input.index, input.attempt), auth)
      : null;
  return {
    ...(result.agentOutput !== undefined ? { agentOutput: result.agentOutput } : {}),
    failures: result.failures,
    events: result.events,
    ...(work ? { work } : {}),
    state: await handedState(runDir),
  };
}

/**
 * This runner's box, proved as `forge serve` proves its own before a run (the toolbox, the
 * box's contract, the repository's setup and controls on a clean clone, the egress doors, each
 * role's enforcement): a runner is a machine forgechain has not seen. Null when it may run.
 */
async function proveRunnerBox(
  d: StepJobDeps,
  home: string,
  run: RunRecord,
  env: Env,
  auth: Record<string, string>,
): Promise<string | null> {
  const source = join(home, "proof", "repo.git");
  if (!existsSync(source)) {
    await git(["clone", "--quiet", "--bare", "--", run.repo.remote, source], {
      cwd: home,
      env: auth,
    });
  }
  const store = openJournal(join(home, "proof", "journal.db"));
  try {
    const proof = await ensureBoxProof({
      store,
      repo: source,
      box: "bwrap",
      config: frozenConfig(run),
      root: d.installRoot,
      forgeHome: home,
      env,
      ownWork: false,
    });
    if (proof.proved) d.out(`forgechain: proved this runner's box\n`);
    return proof.failure ? `this runner's box cannot run the step: ${proof.failure}` : null;
  } finally {
    await store.close();
  }
}

/** An identity token for `audience`, as actions/core's getIDToken asks the runner for one. */
async function idToken(env: Env, audience: string, http: typeof fetch): Promise<string> {
  const url = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const bearer = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!url || !bearer) {
    throw new ActionInputError(
      "this job has no identity token to report with: give the workflow `permissions: id-token: write`",
    );
  }
  const sep = url.includes("?") ? "&" : "?";
  const r = await http(`${url}${sep}audience=${encodeURIComponent(audience)}`, {
    headers: { authorization: `Bearer ${bearer}`, accept: "application/json" },
  });
  const body = (await r.json().catch(() => null)) as { value?: unknown } | null;
  if (!r.ok || typeof body?.value !== "string") {
    throw new Error(`the runner gave no identity token (${r.status})`);
  }
  return body.value;
}

async function message(r: Response): Promise<string> {
  const text = await r.text().catch(() => "");
  try {
    return String((JSON.parse(text) as { message?: unknown }).message ?? text).slice(0, 500);
  } catch {
    return text.slice(0, 500);
  }
}
