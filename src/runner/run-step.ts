// One role step, start to verdict facts: the step's own workspace, its agent (warm or cold),
// the prompt, the wait, and what the runner measures afterwards — the verdict rules, the role
// gate, write detection for a read-only step, and the builder's work brought back and checked.
import { join } from "node:path";
import type { Box } from "../boxes/types.js";
import type { StepInput, StepResult } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { ROLE_GATE_VIOLATION } from "../policy/index.js";
import { readOnlyPromptSentences } from "../providers/read-only-flags.js";
import type { Decision } from "../roles/decision.js";
import type { Role } from "../roles/role-names.js";
import { decideVerdict, prepareVerdicts } from "../roles/verdict.js";
import { redactSecrets } from "../secrets/index.js";
import {
  type AgentLaunchDeps,
  invocationFor,
  type LaunchedAgent,
  launchAgent,
  prepareAgent,
  stopLaunched,
} from "./agent-launch.js";
import { cancelledBeforeStart } from "./agent-process.js";
import { checkBuilderWork } from "./builder-checks.js";
import type { DiffCache } from "./diff.js";
import { diffTooLarge } from "./diff-budget.js";
import type { LocalRunnerOptions } from "./local-runner.js";
import { registerAgentLogin } from "./login-secrets.js";
import { buildPrompt, LIMITS } from "./prompt.js";
import type { RunGit, RunGitCache } from "./run-git.js";
import { loadRunState, saveRunState } from "./run-state.js";
import {
  constraintsFor,
  feedbackFor,
  processReasons,
  readRequest,
  roleGateOutcome,
} from "./step-outcome.js";
import { advanceStep, layOutStep, type StepPrepareDeps } from "./step-prepare.js";
import { phaseClock } from "./step-timing.js";
import type { LayoutBoxes } from "./step-workspace.js";
import { detectWrites, manifestOf, type TreeManifest } from "./tree-manifest.js";
import type { WarmAgent } from "./warm-agents.js";
import type { Workspace } from "./workspace.js";

const DEFAULT_STEP_TIMEOUT = 30 * 60_000;
const TRANSCRIPT_CAP = 512 * 1024;

type StepKey = { index: number; role: Role; attempt: number };

export interface StepContext {
  opts: LocalRunnerOptions;
  runs: RunGitCache;
  diffs: DiffCache;
  launchDeps: AgentLaunchDeps;
  prepareDeps: StepPrepareDeps;
  layout: LayoutBoxes;
  boxFor(role: Role, workspace: string, home: string, extraRo: string[]): Box;
  scrubbedEnv(home: string): Record<string, string>;
  forgeArgv: string[];
  runDir(runId: string): string;
  stepDirOf(runId: string, s: StepKey): string;
  branchOf(run: RunRecord): string;
  takeWarm(input: StepInput): Promise<WarmAgent | null>;
  warmNext(
    input: StepInput,
    next: NonNullable<StepInput["next"]>,
    events: StepResult["events"],
  ): Promise<void>;
  commitFor(role: Role, g: RunGit): string;
}

export async function runOneStep(c: StepContext, input: StepInput): Promise<StepResult> {
  const { run, role, attempt } = input;
  const events: StepResult["events"] = [];
  const clock = phaseClock();
  const state = await loadRunState(c.runDir(run.id));
  const branch = c.branchOf(run);
  const g = await c.runs.get(run);
  const runPatch = { baseSha: g.base.baseSha, branch };
  const fail = (reasons: string[]): StepResult => ({
    decision: { role, verdict: "FAIL", reasons, overridden: false },
    output: null,
    feedback: feedbackFor(role, attempt, "failed", reasons.join("; ")),
    events,
    runPatch,
  });
  const stepDir = c.stepDirOf(run.id, input);
  const warm = await c.takeWarm(input);
  warm?.launched.handle.hold(true);
  let ws: Workspace;
  let before: TreeManifest | null = warm?.before ?? null;
  if (warm) {
    ws = warm.prepared.target.ws;
    const commit = c.commitFor(role, g);
    if (warm.commit !== commit) {
      await advanceStep(c.prepareDeps, g, { stepDir, branch, commit });
      if (before) before = await manifestOf(ws.dir);
    }
  } else {
    const laid = await layOutStep(c.prepareDeps, g, { role, stepDir, branch });
    events.push(...laid.events);
    ws = laid.ws;
    if (laid.setupFailed) return fail([`setup command failed: ${laid.setupFailed}`]);
  }
  clock.mark("workspace");
  if (state.notes.length === 0) {
    state.notes.push(...c.boxFor(role, ws.dir, stepDir, []).describe().notes);
    await saveRunState(c.runDir(run.id), state);
  }

  const target = {
    run,
    role,
    index: input.index,
    attempt,
    ws,
    stepDir,
    roleRepoDir: g.roleFilesDir,
  };
  const prepared = warm?.prepared ?? (await prepareAgent(c.launchDeps, target));
  const { readOnly, home, settingsFile, ledgerFile, providerOpts } = prepared;
  const boxInfo = prepared.box.describe();
  events.push({
    type: "step.prepared",
    data: {
      role,
      attempt,
      roleSource: prepared.definition.origin,
      skills: prepared.skills.installed,
      skillsMissing: prepared.skills.missing,
      skillsRefused: prepared.skills.refused,
      box: boxInfo.kind,
      network: boxInfo.network,
      warmStart: warm !== null,
    },
  });

  clock.mark("prepare");
  // The agent boots while the runner lists the workspace and builds the prompt: an agent
  // without a prompt reads nothing of the tree (an agent whose settings make it read the tree
  // at its start waits for the listing).
  const { opts } = c;
  const early =
    opts.provider.promptOnStdin && !warm && !input.signal.aborted && !prepared.readsTreeAtStart;
  const launching: Promise<LaunchedAgent | null> = warm
    ? Promise.resolve(warm.launched)
    : early
      ? launchAgent(c.launchDeps, prepared, invocationFor(c.launchDeps, prepared))
      : Promise.resolve(null);
  const reviewing = role === "reviewer" || role === "security";
  const [diff, realDiff, listed] = await Promise.all([
    reviewing ? c.diffs.diff(g.repos.agents, g.base.agentBase, g.base.agentHead) : null,
    reviewing ? c.diffs.diff(g.repos.real, g.base.baseSha, g.base.workHead) : null,
    before ?? (readOnly ? manifestOf(ws.dir) : null),
  ]).catch(async (error: unknown) => {
    // The agent started for this step must not outlive it.
    const started = await launching.catch(() => null);
    if (started) await stopLaunched(started);
    throw error;
  });
  before = listed;
  clock.mark("write-check");
  // The reviewer and security see the whole diff or nothing (diff-budget.ts): never a cut.
  const diffLimit = opts.config?.review?.maxDiffBytes.value ?? LIMITS.diff;
  const tooLarge = diff ? diffTooLarge(diff.diff, diffLimit) : null;
  if (tooLarge) {
    const started = await launching.catch(() => null);
    if (started) await stopLaunched(started);
    return fail([tooLarge]);
  }
  // The next step's agent can start now and wait for its prompt (warm-agents.ts).
  const warming = input.next ? c.warmNext(input, input.next, events) : Promise.resolve();
  const controls = reviewing ? await controlsForPrompt(state.controls) : undefined;
  const prompt = buildPrompt({
    role,
    roleDefinition: prepared.definition.prompt,
    ...(readOnly ? { readOnlySentences: readOnlyPromptSentences() } : {}),
    task: input.task,
    prior: input.prior,
    answers: input.answers,
    ...(diff ? { diff: diff.diff, diffLimitBytes: diffLimit } : {}),
    ...(controls ? { controls } : {}),
    constraints: constraintsFor(role, readOnly, g.base.hidden),
  });
  let launched = await launching;
  // A provider that takes its prompt on the command line starts only now, and so does an
  // agent that reads the tree at its start.
  if (!launched && !input.signal.aborted) {
    const promptArg = opts.provider.promptOnStdin ? undefined : prompt;
    launched = await launchAgent(
      c.launchDeps,
      prepared,
      invocationFor(c.launchDeps, prepared, promptArg),
    );
  }
  clock.mark("prepare");
  const inv = launched?.invocation;
  if (launched && inv?.stdinPrompt) launched.handle.send(inv.stdinPrompt(prompt));
  // Once per process, while the agent works rather than after it (a cold one takes 0.1 s of
  // the main thread): after the next agent's launch, which it would delay.
  const soon = () => setImmediate(() => void prepareVerdicts());
  warming.then(soon, soon);
  const timeoutMs = opts.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT;
  const proc = launched
    ? await launched.handle
        .wait({
          timeoutMs,
          ...(providerOpts.maxTurns !== undefined ? { maxTurns: providerOpts.maxTurns } : {}),
          signal: input.signal,
          onToolUse: (lastTool) => input.progress({ role, lastTool }),
          onRefusal: (refusal) => input.progress({ role, refusal }),
          stopOnRefusal: (text) => text.includes(ROLE_GATE_VIOLATION),
        })
        .finally(() => launched?.cleanup())
    : cancelledBeforeStart();
  await warming;
  if (opts.claudeCredentialsFile) {
    await registerAgentLogin(join(home, ".claude", ".credentials.json"));
  }
  clock.mark("agent");
  const transcript = (await redactSecrets(proc.stdout.slice(-TRANSCRIPT_CAP))).text;
  events.push({
    type: "step.transcript",
    data: {
      role,
      attempt,
      bytes: proc.stdout.length,
      truncated: proc.stdout.length > TRANSCRIPT_CAP,
      turns: proc.turns,
      stream: transcript,
    },
  });

  const parsed = opts.provider.parseResult(proc.stdout);
  // The secret rule (R3.3) reads the real diff: files agents were not shown count too.
  const verdict = await decideVerdict(role, parsed.raw, realDiff ? { diff: realDiff.diff } : {});
  let decision: Decision = verdict.decision;
  const gate = await roleGateOutcome(ledgerFile, join(stepDir, "ledger.jsonl"), proc.stoppedBy);
  if (gate) events.push({ type: "role_gate.violation", data: { role, ...gate } });
  const runnerReasons = await processReasons(proc, {
    timeoutMs,
    maxTurns: providerOpts.maxTurns,
    gate: gate?.detail,
  });

  clock.mark("verdict");
  // R4.5 / R2.7: a read-only step that changed its workspace FAILs; the workspace is this
  // step's alone, so its changes go with it.
  if (before) {
    const wrote = await detectWrites(ws.dir, before, role);
    if (wrote) {
      events.push(wrote.event);
      runnerReasons.push(wrote.reason);
    }
  }

  clock.mark("write-check");
  if (role === "builder" && runnerReasons.length === 0 && decision.verdict === "PASS") {
    const checked = await checkBuilderWork({
      work: {
        box: c.boxFor(role, ws.dir, home, [settingsFile, g.repos.agents]),
        ws: ws.dir,
        env: c.scrubbedEnv(home),
        repos: g.repos,
        base: g.base,
        stepDir,
        runId: run.id,
        title: run.task.title,
        timeoutMs: opts.controlTimeoutMs ?? 10 * 60_000,
      },
      branch,
      config: opts.config,
      ...(opts.controlTimeoutMs !== undefined ? { controlTimeoutMs: opts.controlTimeoutMs } : {}),
      layout: c.layout,
      controlsDir: join(stepDir, "controls"),
      controlsBox: (dir, h, extra = []) => c.boxFor(role, dir, h, extra),
      setupBox: (dir, h) => c.boxFor(role, dir, h, []),
      controlsEnv: c.scrubbedEnv,
      forge: c.forgeArgv,
      state,
      saveState: () => saveRunState(c.runDir(run.id), state),
    });
    events.push(...checked.events);
    runnerReasons.push(...checked.reasons);
    if (checked.work) c.runs.setWork(run.id, checked.work);
  }

  clock.mark("after");
  events.push({ type: "step.timings", data: { role, attempt, phases: clock.phases() } });
  if (runnerReasons.length > 0) {
    decision = {
      role,
      verdict: "FAIL",
      reasons: [...runnerReasons, ...decision.reasons],
      overridden: decision.verdict === "PASS",
    };
  }
  const request = readRequest(verdict.output);
  const disposition =
    request && runnerReasons.length === 0
      ? "clarification"
      : decision.verdict === "PASS"
        ? "completed"
        : "failed";
  const summary =
    typeof (verdict.output as { summary?: unknown } | null)?.summary === "string"
      ? String((verdict.output as { summary: string }).summary).slice(0, 2000)
      : decision.reasons.join("; ").slice(0, 2000);
  const feedback = feedbackFor(role, attempt, disposition, summary, request ?? undefined);
  return { decision, output: verdict.output, feedback, events, runPatch };
}

/**
 * The control results the reviewer and security read. The controls ran on the repository as
 * committed — files on secret paths included — so their output is redacted first.
 */
async function controlsForPrompt(controls: Awaited<ReturnType<typeof loadRunState>>["controls"]) {
  return Promise.all(
    controls.map(async (ctl) => ({
      name: ctl.name,
      advisory: ctl.advisory,
      ok: ctl.exitCode === 0,
      exitCode: ctl.exitCode,
      output: (await redactSecrets(ctl.output)).text,
    })),
  );
}
