// One role step: its own workspace (placeStep), its agent warm or cold with the prompt and the
// whole wait (runAgent), then what the runner measured of it (step-measure.ts) — the engine
// judges.
import { join } from "node:path";
import type { Box, ExtraBind, NetworkSeam } from "../boxes/types.js";
import type { StepInput, StepResult } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { ROLE_GATE_VIOLATION } from "../policy/index.js";
import { readOnlyPromptSentences } from "../providers/read-only-flags.js";
import { READ_ONLY_ROLES, type Role } from "../roles/role-names.js";
import { prepareVerdicts } from "../roles/verdict.js";
import { redactSecrets } from "../secrets/index.js";
import {
  type AgentLaunchDeps,
  invocationFor,
  type LaunchedAgent,
  launchAgent,
  type PreparedAgent,
  prepareAgent,
  stopLaunched,
} from "./agent-launch.js";
import { type AgentProcessResult, cancelledBeforeStart } from "./agent-process.js";
import type { DiffCache, DiffFacts } from "./diff.js";
import { diffTooLarge } from "./diff-budget.js";
import type { LocalRunnerOptions } from "./local-runner.js";
import { registerAgentLogin } from "./login-secrets.js";
import { buildPrompt, LIMITS } from "./prompt.js";
import type { RunEgress } from "./run-egress.js";
import { missingBuilderWork, type RunGit, type RunGitCache } from "./run-git.js";
import { loadRunState, type RunState, saveRunState } from "./run-state.js";
import { measureStep } from "./step-measure.js";
import { constraintsFor } from "./step-outcome.js";
import { advanceStep, layOutStep, type StepPrepareDeps } from "./step-prepare.js";
import { phaseClock } from "./step-timing.js";
import type { LayoutBoxes } from "./step-workspace.js";
import { manifestOf, type TreeManifest } from "./tree-manifest.js";
import type { WarmAgent } from "./warm-agents.js";
import type { Workspace } from "./workspace.js";

const DEFAULT_STEP_TIMEOUT = 30 * 60_000;

type StepKey = { index: number; role: Role; attempt: number };

export interface StepContext {
  opts: LocalRunnerOptions;
  runs: RunGitCache;
  diffs: DiffCache;
  launchDeps: AgentLaunchDeps;
  prepareDeps: StepPrepareDeps;
  layout: LayoutBoxes;
  boxFor(
    role: Role,
    workspace: string,
    home: string,
    extraRo: string[],
    binds?: ExtraBind[],
    network?: NetworkSeam,
  ): Box;
  scrubbedEnv(home: string): Record<string, string>;
  egress: RunEgress;
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

/** What every phase of one step shares. */
export interface StepScope {
  input: StepInput;
  g: RunGit;
  state: RunState;
  branch: string;
  stepDir: string;
  events: StepResult["events"];
  clock: ReturnType<typeof phaseClock>;
  /** The step failed before its agent ran: only these reasons go to the engine. */
  fail(reasons: string[]): StepResult;
}

export async function runOneStep(c: StepContext, input: StepInput): Promise<StepResult> {
  const { run } = input;
  const events: StepResult["events"] = [];
  const branch = c.branchOf(run);
  const g = await c.runs.get(run);
  const runPatch = { baseSha: g.base.baseSha, branch };
  const scope: StepScope = {
    input,
    g,
    state: await loadRunState(c.runDir(run.id)),
    branch,
    stepDir: c.stepDirOf(run.id, input),
    events,
    clock: phaseClock(),
    fail: (reasons) => ({ failures: reasons, events, runPatch }),
  };
  const lost = await missingBuilderWork(g, input);
  if (lost) return scope.fail([lost]);
  const placed = await placeStep(c, scope);
  if ("failures" in placed) return placed;
  const ran = await runAgent(c, scope, placed);
  if ("failures" in ran) return ran;
  return { ...(await measureStep(c, scope, ran)), runPatch };
}

interface Placed {
  warm: WarmAgent | null;
  ws: Workspace;
  before: TreeManifest | null;
}

/** The step's workspace: the warm agent's (moved to its commit if needed), or laid out now. */
async function placeStep(c: StepContext, s: StepScope): Promise<Placed | StepResult> {
  const { role } = s.input;
  const warm = await c.takeWarm(s.input);
  warm?.launched.handle.hold(true);
  try {
    let ws: Workspace;
    let before = warm?.before ?? null;
    const notes: string[] = [];
    if (warm) {
      ws = warm.prepared.target.ws;
      const commit = c.commitFor(role, s.g);
      if (warm.commit !== commit) {
        await advanceStep(c.prepareDeps, s.g, { stepDir: s.stepDir, branch: s.branch, commit });
        if (before) before = await manifestOf(ws.dir);
      }
    } else {
      const laid = await layOutStep(c.prepareDeps, s.g, {
        role,
        readOnly: READ_ONLY_ROLES.has(role),
        stepDir: s.stepDir,
        branch: s.branch,
        ...(s.state.setup ? { setup: s.state.setup } : {}),
      });
      ws = laid.ws;
      notes.push(...laid.notes);
    }
    s.clock.mark("workspace");
    // What the box does not enforce (once per run), and what a step could not be shown.
    if (s.state.notes.length === 0) {
      notes.push(...c.boxFor(role, ws.dir, s.stepDir, []).describe().notes);
    }
    const fresh = notes.filter((n, i) => !s.state.notes.includes(n) && notes.indexOf(n) === i);
    if (fresh.length > 0) {
      s.state.notes.push(...fresh);
      await saveRunState(c.runDir(s.input.run.id), s.state);
    }
    return { warm, ws, before };
  } catch (error) {
    // The warm agent taken for this step must not outlive it.
    if (warm) await stopLaunched(warm.launched);
    throw error;
  }
}

export interface Ran {
  prepared: PreparedAgent;
  ws: Workspace;
  before: TreeManifest | null;
  realDiff: DiffFacts | null;
  proc: AgentProcessResult;
  timeoutMs: number;
}

/** The agent, warm or cold, its prompt and its whole run; the next step's agent warms meanwhile. */
async function runAgent(c: StepContext, s: StepScope, p: Placed): Promise<Ran | StepResult> {
  const { opts } = c;
  const { input, g } = s;
  const { role, attempt } = input;
  const { warm, ws } = p;
  const prepared =
    warm?.prepared ??
    (await prepareAgent(c.launchDeps, {
      run: input.run,
      role,
      index: input.index,
      attempt,
      ws,
      stepDir: s.stepDir,
      roleRepoDir: g.roleFilesDir,
    }));
  const { readOnly, home, providerOpts } = prepared;
  s.events.push(preparedEvent(prepared, role, attempt, warm !== null));
  s.clock.mark("prepare");
  // The agent boots while the runner lists the workspace and builds the prompt: an agent
  // without a prompt reads nothing of the tree (an agent whose settings make it read the tree
  // at its start waits for the listing).
  const early =
    opts.provider.promptOnStdin && !warm && !input.signal.aborted && !prepared.readsTreeAtStart;
  const launching: Promise<LaunchedAgent | null> = warm
    ? Promise.resolve(warm.launched)
    : early
      ? launchAgent(c.launchDeps, prepared, invocationFor(c.launchDeps, prepared))
      : Promise.resolve(null);
  const stopStarted = async () => {
    const started = await launching.catch(() => null);
    if (started) await stopLaunched(started);
  };
  const reviewing = role === "reviewer" || role === "security";
  const [diff, realDiff, before] = await Promise.all([
    reviewing ? c.diffs.diff(g.repos.agents, g.base.agentBase, g.base.agentHead) : null,
    reviewing ? c.diffs.diff(g.repos.real, g.base.baseSha, g.base.workHead) : null,
    p.before ?? (readOnly ? manifestOf(ws.dir) : null),
  ]).catch(async (error: unknown) => {
    await stopStarted();
    throw error;
  });
  s.clock.mark("write-check");
  // The reviewer and security see the whole diff or nothing (diff-budget.ts): never a cut.
  const diffLimit = opts.config?.review?.maxDiffBytes.value ?? LIMITS.diff;
  const tooLarge = diff ? diffTooLarge(diff.diff, diffLimit) : null;
  if (tooLarge) {
    await stopStarted();
    return s.fail([tooLarge]);
  }
  // The next step's agent can start now and wait for its prompt (warm-agents.ts).
  const warming = input.next ? c.warmNext(input, input.next, s.events) : Promise.resolve();
  const controls = reviewing ? await controlsForPrompt(s.state.controls) : undefined;
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
  s.clock.mark("prepare");
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
          ...(opts.idleTimeoutMs !== undefined ? { idleTimeoutMs: opts.idleTimeoutMs } : {}),
          signal: input.signal,
          onToolUse: (lastTool) => input.progress({ role, lastTool }),
          onRefusal: (refusal) => input.progress({ role, refusal }),
          stopOnRefusal: (text) => text.includes(ROLE_GATE_VIOLATION),
        })
        .finally(async () => {
          // The door's refusals belong to this step; they never decide it (R4.6).
          if (launched) s.events.push(...(await launched.cleanup()));
        })
    : cancelledBeforeStart();
  await warming;
  if (opts.claudeCredentialsFile) {
    await registerAgentLogin(join(home, ".claude", ".credentials.json"));
  }
  s.clock.mark("agent");
  return { prepared, ws, before, realDiff, proc, timeoutMs };
}

function preparedEvent(p: PreparedAgent, role: Role, attempt: number, warmStart: boolean) {
  const boxInfo = p.box.describe();
  return {
    type: "step.prepared",
    data: {
      role,
      attempt,
      roleSource: p.definition.origin,
      skills: p.skills.installed,
      skillsMissing: p.skills.missing,
      skillsRefused: p.skills.refused,
      box: boxInfo.kind,
      network: boxInfo.network,
      warmStart,
    },
  };
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
