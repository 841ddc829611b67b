// The local runner: executes one role step of a run on this machine, in a box (R10.1).
// The runner — not the agent — clones, measures the base, computes the diff, checks writes,
// runs verify and the controls, commits and pushes. The agent only ever sees a fresh HOME,
// a scrubbed environment and its workspace.
import { existsSync, lstatSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createBox } from "../boxes/create-box.js";
import type { Box, BoxKind } from "../boxes/types.js";
import type { Logger, StepInput, StepResult, StepRunner } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import {
  type Profile,
  profileToBoxOptions,
  type ResolvedConfig,
  ROLE_GATE_VIOLATION,
  setupToRun,
} from "../policy/index.js";
import { readOnlyPromptSentences } from "../providers/read-only-flags.js";
import type { Provider } from "../providers/types.js";
import type { Decision } from "../roles/decision.js";
import type { Role } from "../roles/role-names.js";
import { decideVerdict, prepareVerdicts } from "../roles/verdict.js";
import { redactSecrets } from "../secrets/index.js";
import { buildAgentEnv } from "./agent-env.js";
import { createAgentHome } from "./agent-home.js";
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
import { runSetup } from "./controls-exec.js";
import { createDiffCache } from "./diff.js";
import { createFinishRun } from "./finish-run.js";
import { gitDirProblem } from "./git-dir-check.js";
import { buildPrompt } from "./prompt.js";
import { loadRunState, saveRunState } from "./run-state.js";
import {
  constraintsFor,
  feedbackFor,
  processReasons,
  readRequest,
  resetTree,
  roleGateOutcome,
} from "./step-outcome.js";
import { phaseClock } from "./step-timing.js";
import { cleanSnapshot, discardWrites, type TreeSnapshot } from "./tree-snapshot.js";
import { createWarmAgents } from "./warm-agents.js";
import { branchName, prepareWorkspace, type Workspace } from "./workspace.js";

export interface LocalRunnerOptions {
  /** FORGE_HOME: workspaces live under <forgeHome>/work/<run-id>/. */
  forgeHome: string;
  /** The forgechain checkout: settings/, schemas/, roles/, skills/, bin/forge.js. */
  installRoot: string;
  provider: Provider;
  boxKind: BoxKind;
  ownWork?: boolean;
  hostEnv: Record<string, string | undefined>;
  profiles: Record<Role, Profile>;
  /** The repository's resolved policy; null runs no setup and no controls. */
  config: ResolvedConfig | null;
  /** A handbook checkout at its pinned ref (R2.3); absent → repo fallback, then defaults. */
  handbookDir?: string;
  /** The user's claude login, copied into each agent HOME (mode 0600) when set. */
  claudeCredentialsFile?: string;
  stepTimeoutMs?: number;
  controlTimeoutMs?: number;
  logger: Logger;
  /**
   * Environment for the runner's clone and push of `run.repo.remote` only (e.g. the App's
   * installation token as git's http.extraHeader). Never passed to an agent, a control or
   * the journal; `run.repo.remote` itself stays credential-free.
   */
  remoteAuth?: (run: RunRecord) => Promise<Record<string, string>>;
  /** bwrap boxes: run the guard as an in-box server (default true; false: every hook alone). */
  guardServer?: boolean;
  /**
   * Start the next step's agent while a read-only step runs (warm-agents.ts). Default true; only
   * in bwrap boxes, which die with the runner (--die-with-parent) if it never gets to kill one.
   */
  warmStart?: boolean;
}

const DEFAULT_STEP_TIMEOUT = 30 * 60_000;
const TRANSCRIPT_CAP = 512 * 1024;

export function createLocalRunner(opts: LocalRunnerOptions): StepRunner {
  const runDir = (id: string) => join(opts.forgeHome, "work", id);
  const forgeArgv = [process.execPath, join(opts.installRoot, "bin", "forge.js")];
  // The box must see the toolbox (node, forgechain, the claude binary) even if it lives under
  // a masked directory (/root, /home), and must never see FORGE_HOME (gate.key, the journal,
  // other runs' workspaces).
  const toolbox = [opts.installRoot, dirname(dirname(process.execPath))];

  function boxFor(role: Role, workspace: string, home: string, extraRo: string[]): Box {
    const p = profileToBoxOptions(opts.profiles[role]);
    return createBox(opts.boxKind, {
      workspace,
      home,
      readOnlyPaths: [...toolbox, ...extraRo, ...(p.readOnlyRepo ? [workspace] : [])],
      writeSubpaths: p.writeSubpaths,
      denySubpaths: [...p.denySubpaths, opts.forgeHome],
      // The agent must reach its model endpoint; until the egress proxy (R4.6) exists the box
      // shares the host network and the report says so.
      allowNetwork: true,
      ownWork: opts.ownWork ?? false,
    });
  }

  const warmAgents = createWarmAgents();
  const diffs = createDiffCache();
  const warmStarts = opts.warmStart !== false && opts.boxKind === "bwrap";
  // LocalRunnerOptions carries every launch dependency under the same name.
  const launchDeps: AgentLaunchDeps = { ...opts, boxFor };
  const stepDirOf = (runId: string, s: { index: number; role: Role; attempt: number }) =>
    join(runDir(runId), "steps", `${s.index}-${s.role}-${s.attempt}`);
  const warmKey = (runId: string, s: { index: number; role: Role; attempt: number }) => ({
    runId,
    index: s.index,
    role: s.role,
    attempt: s.attempt,
  });

  /** Start the next step's agent without its prompt (warm-agents.ts). */
  function warmNext(
    input: StepInput,
    next: NonNullable<StepInput["next"]>,
    ws: Workspace,
    before: TreeSnapshot | null,
    events: StepResult["events"],
  ): Promise<void> {
    return warmAgents.prepare(warmKey(input.run.id, next), async () => {
      const prepared = await prepareAgent(launchDeps, {
        run: input.run,
        ...next,
        ws,
        stepDir: stepDirOf(input.run.id, next),
      });
      // Behind a read-only step, `before` is also the next step's tree: if the current step
      // writes, it FAILs and this agent is killed unprompted. Behind the builder it is null and
      // the next step snapshots its tree when it starts (after the controls and its reset).
      const nextBefore = prepared.readOnly ? before : null;
      // An agent that reads the tree at its start would keep a stale picture of it (a run
      // frozen with settings that lack `includeGitInstructions: false`): it starts cold.
      if (prepared.readsTreeAtStart && before === null) return null;
      if (input.signal.aborted || !opts.provider.promptOnStdin) return null;
      const invocation = invocationFor(launchDeps, prepared);
      const launched = await launchAgent(launchDeps, prepared, invocation);
      launched.handle.hold(false);
      events.push({
        type: "agent.warm_started",
        data: { next, startedAt: new Date().toISOString() },
      });
      return { prepared, launched, before: nextBefore };
    });
  }

  async function runStep(input: StepInput): Promise<StepResult> {
    // A warm successor lives only as long as this step may still PASS into it.
    const onAbort = () => void warmAgents.discard(input.run.id);
    input.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const result = await runOneStep(input);
      if (result.feedback.disposition !== "completed" || result.decision.verdict !== "PASS") {
        await warmAgents.discard(input.run.id);
      }
      return result;
    } catch (error) {
      await warmAgents.discard(input.run.id);
      throw error;
    } finally {
      input.signal.removeEventListener("abort", onAbort);
    }
  }

  async function runOneStep(input: StepInput): Promise<StepResult> {
    const { run, role, attempt } = input;
    const events: StepResult["events"] = [];
    const clock = phaseClock();
    const dir = runDir(run.id);
    await mkdir(dir, { recursive: true });
    const state = await loadRunState(runDir(run.id));
    const branch = run.branch ?? branchName(run.task.title, run.task.number, run.id);
    // A workspace an earlier step's box wrote (a re-attempt, the next role): its .git must be
    // git's own before the runner's git runs in it (git-dir-check.ts).
    const gitEntry = lstatSync(join(dir, "repo", ".git"), { throwIfNoEntry: false });
    const unsafe = gitEntry ? await gitDirProblem(join(dir, "repo")) : null;
    if (unsafe) {
      return {
        decision: { role, verdict: "FAIL", reasons: [unsafe], overridden: false },
        output: null,
        feedback: feedbackFor(role, attempt, "failed", unsafe),
        events,
      };
    }
    const ws = await prepareWorkspace({
      remote: run.repo.remote,
      baseRef: run.repo.baseRef,
      ...(run.repo.headRef !== undefined ? { headRef: run.repo.headRef } : {}),
      dir: join(dir, "repo"),
      branch,
      knownBaseSha: run.baseSha,
      ...(opts.remoteAuth && !existsSync(join(dir, "repo", ".git"))
        ? { gitEnv: await opts.remoteAuth(run) }
        : {}),
    });
    const runPatch = { baseSha: ws.baseSha, branch: ws.branch };
    // Every attempt starts from a known tree: a builder re-attempt from the base (a crashed or
    // questioned attempt's half-done edits are not built upon), a read-only step from HEAD
    // (cleanSnapshot, below: it resets only a tree that is not clean).
    if (role === "builder" && attempt > 1) await resetTree(ws.dir, ws.baseSha);
    clock.mark("workspace");
    const fail = (reasons: string[], extra: Partial<StepResult> = {}): StepResult => ({
      decision: { role, verdict: "FAIL", reasons, overridden: false },
      output: null,
      feedback: feedbackFor(role, attempt, "failed", reasons.join("; ")),
      events,
      runPatch,
      ...extra,
    });

    if (!state.setupDone && opts.config) {
      const setup = setupToRun(opts.config);
      if (setup.length > 0) {
        // The setup commands get a HOME of their own: the agent's HOME holds only its skills.
        const setupHome = join(dir, "setup-home");
        await createAgentHome({ home: setupHome });
        const r = await runSetup(setup, {
          box: boxFor(role, ws.dir, setupHome, []),
          workspace: ws.dir,
          env: buildAgentEnv({
            host: opts.hostEnv,
            home: setupHome,
            providerCredentials: {},
            extra: {},
          }),
          forge: forgeArgv,
          timeoutMs: opts.controlTimeoutMs ?? 20 * 60_000,
        });
        events.push({
          type: "setup.finished",
          data: { ok: r.ok, output: (await redactSecrets(r.output)).text },
        });
        if (!r.ok) return fail([`setup command failed: ${r.failed}`]);
      }
      state.setupDone = true;
      state.notes.push(...boxFor(role, ws.dir, dir, []).describe().notes);
      await saveRunState(runDir(run.id), state);
    }

    const target = {
      run,
      role,
      index: input.index,
      attempt,
      ws,
      stepDir: stepDirOf(run.id, input),
    };
    const warm = await warmAgents.take(warmKey(run.id, input));
    warm?.launched.handle.hold(true);
    const prepared = warm?.prepared ?? (await prepareAgent(launchDeps, target));
    const readOnly = prepared.readOnly;
    const home = prepared.home;
    const settingsFile = prepared.settingsFile;
    const ledgerFile = prepared.ledgerFile;
    const stepDir = target.stepDir;
    const providerOpts = prepared.providerOpts;
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
    // The agent boots while the runner takes its snapshot and builds the prompt: an agent
    // without a prompt reads nothing of the tree (an agent whose settings make it read the tree
    // at its start waits for the snapshot, which may reset the tree).
    // R4.5: a warm agent's snapshot was taken before it started, so it covers its whole life;
    // behind a read-only step that left the tree as it found it, the tree is clean.
    const early =
      opts.provider.promptOnStdin && !warm && !input.signal.aborted && !prepared.readsTreeAtStart;
    const launching: Promise<LaunchedAgent | null> = warm
      ? Promise.resolve(warm.launched)
      : early
        ? launchAgent(launchDeps, prepared, invocationFor(launchDeps, prepared))
        : Promise.resolve(null);
    const reviewing = role === "reviewer" || role === "security";
    const [diff, before] = await Promise.all([
      reviewing ? diffs.diff(ws.dir, ws.baseSha, warm?.before?.head) : null,
      warm?.before ?? (readOnly ? cleanSnapshot(ws.dir) : null),
    ]).catch(async (error: unknown) => {
      // The agent started for this step must not outlive it.
      const started = await launching.catch(() => null);
      if (started) await stopLaunched(started);
      throw error;
    });
    clock.mark("write-check");
    // The next step's agent can start now and wait for its prompt (warm-agents.ts): it reads
    // nothing of the tree before its prompt, and gets nothing before its own step. It starts
    // as early as this step's snapshot allows: it has 0.8 s of CPU to boot on a shared machine.
    const warming =
      input.next && warmStarts && opts.provider.promptOnStdin && !input.signal.aborted
        ? warmNext(input, input.next, ws, before, events)
        : Promise.resolve();
    const prompt = buildPrompt({
      role,
      roleDefinition: prepared.definition.prompt,
      ...(readOnly ? { readOnlySentences: readOnlyPromptSentences() } : {}),
      task: input.task,
      prior: input.prior,
      answers: input.answers,
      ...(diff ? { diff: diff.diff } : {}),
      ...(reviewing
        ? {
            controls: state.controls.map((c) => ({
              name: c.name,
              advisory: c.advisory,
              ok: c.exitCode === 0,
              exitCode: c.exitCode,
              output: c.output,
            })),
          }
        : {}),
      constraints: constraintsFor(role, readOnly),
    });
    let launched = await launching;
    // A provider that takes its prompt on the command line starts only now, and so does an
    // agent that reads the tree at its start.
    if (!launched && !input.signal.aborted) {
      const promptArg = opts.provider.promptOnStdin ? undefined : prompt;
      launched = await launchAgent(
        launchDeps,
        prepared,
        invocationFor(launchDeps, prepared, promptArg),
      );
    }
    clock.mark("prepare");
    const inv = launched?.invocation;
    if (launched && inv?.stdinPrompt) launched.handle.send(inv.stdinPrompt(prompt));
    // Once per process, while the agent works rather than after it (a cold one takes 0.1 s of
    // the main thread): after the next agent's launch, which it would delay.
    const soon = () => setImmediate(() => void prepareVerdicts());
    warming.then(soon, soon);
    const proc = launched
      ? await launched.handle
          .wait({
            timeoutMs: opts.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT,
            ...(providerOpts.maxTurns !== undefined ? { maxTurns: providerOpts.maxTurns } : {}),
            signal: input.signal,
            onToolUse: (lastTool) => input.progress({ role, lastTool }),
            onRefusal: (refusal) => input.progress({ role, refusal }),
            stopOnRefusal: (text) => text.includes(ROLE_GATE_VIOLATION),
          })
          .finally(() => launched?.cleanup())
      : cancelledBeforeStart();
    await warming;
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
    const verdict = await decideVerdict(role, parsed.raw, diff ? { diff: diff.diff } : {});
    let decision: Decision = verdict.decision;
    const gate = await roleGateOutcome(ledgerFile, join(stepDir, "ledger.jsonl"), proc.stoppedBy);
    if (gate) events.push({ type: "role_gate.violation", data: { role, ...gate } });
    const runnerReasons = await processReasons(proc, {
      timeoutMs: opts.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT,
      maxTurns: providerOpts.maxTurns,
      gate: gate?.detail,
    });

    clock.mark("verdict");
    // R4.5 / R2.7: a read-only step that changed the tree FAILs, and its changes are discarded.
    // Restoring runs git on the host: only on a .git that is git's own (a box that lets a
    // read-only step write, worktree or container, could have planted links in it).
    const unsafeAfter = before ? await gitDirProblem(ws.dir) : null;
    if (unsafeAfter) runnerReasons.push(unsafeAfter);
    else if (before) {
      const wrote = await discardWrites(ws.dir, before, role);
      if (wrote) {
        events.push(wrote.event);
        runnerReasons.push(wrote.reason);
      }
    }

    clock.mark("write-check");
    if (role === "builder" && runnerReasons.length === 0 && decision.verdict === "PASS") {
      const checked = await checkBuilderWork({
        ws,
        runId: run.id,
        config: opts.config,
        ...(opts.controlTimeoutMs !== undefined ? { controlTimeoutMs: opts.controlTimeoutMs } : {}),
        controlsBox: (extra = []) => boxFor(role, ws.dir, home, [settingsFile, ...extra]),
        verifyDir: join(stepDir, "verify"),
        controlsEnv: buildAgentEnv({
          host: opts.hostEnv,
          home,
          providerCredentials: {},
          extra: {},
        }),
        forge: forgeArgv,
        state,
        saveState: () => saveRunState(runDir(run.id), state),
      });
      events.push(...checked.events);
      runnerReasons.push(...checked.reasons);
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

  const finishRun = createFinishRun({
    runDir,
    config: opts.config,
    ...(opts.remoteAuth ? { remoteAuth: opts.remoteAuth } : {}),
    beforeFinish: (runId) => warmAgents.discard(runId),
    diffs,
  });

  return { runStep, finishRun };
}
