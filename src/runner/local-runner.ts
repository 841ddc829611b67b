// The local runner: executes one role step of a run on this machine, in a box (R10.1).
// The runner — not the agent — clones, measures the base, lays out each step's workspace,
// computes the diff, checks writes, brings the builder's work back, runs verify and the
// controls, commits and pushes. The agent only ever sees a fresh HOME, a scrubbed environment
// and a workspace of its own, laid out from the commits agents may see (run-repos.ts).
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type BoxUser, handToBox, resolveBoxUser } from "../boxes/box-user.js";
import { createRunBox, type RunBoxOptions } from "../boxes/run-box.js";
import type { Box, BoxKind, ExtraBind, NetworkSeam } from "../boxes/types.js";
import type { Logger, RunPreparation, StepInput, StepResult, StepRunner } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import {
  type Profile,
  profileToBoxOptions,
  type ResolvedConfig,
  setupToRun,
} from "../policy/index.js";
import type { Provider } from "../providers/types.js";
import { READ_ONLY_ROLES, type Role } from "../roles/role-names.js";
import { outputClaims } from "../roles/verdict.js";
import { knownSecretsFromEnv, registerKnownSecrets } from "../secrets/index.js";
import { buildAgentEnv } from "./agent-env.js";
import { type AgentLaunchDeps, invocationFor, launchAgent, prepareAgent } from "./agent-launch.js";
import { createDiffCache } from "./diff.js";
import { createFinishRun } from "./finish-run.js";
import { registerLoginFile } from "./login-secrets.js";
import { createRunEgress } from "./run-egress.js";
import { createRunGitCache } from "./run-git.js";
import { keepDenials, loadRunState, saveRunState } from "./run-state.js";
import { runOneStep, type StepContext } from "./run-step.js";
import { runSetupPhase, type SetupPhaseDeps } from "./setup-phase.js";
import { commitFor, layOutStep, type StepPrepareDeps } from "./step-prepare.js";
import type { LayoutBoxes } from "./step-workspace.js";
import { manifestOf } from "./tree-manifest.js";
import { createWarmAgents, type WarmKey } from "./warm-agents.js";
import { branchName } from "./workspace.js";

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
  /** FORGE_IDLE_TIMEOUT: an agent without progress this long is ended (idle-watch.ts); 0 = never. */
  idleTimeoutMs?: number;
  /** FORGE_VERIFY_TIMEOUT: how long scripts/verify.sh may take (after the builder and in its Stop hook). */
  verifyTimeoutMs?: number;
  logger: Logger;
  /**
   * Environment for the runner's clone and push of `run.repo.remote` only (e.g. the App's
   * installation token as git's http.extraHeader). Never passed to an agent, a control or
   * the journal; `run.repo.remote` itself stays credential-free.
   */
  remoteAuth?: (run: RunRecord) => Promise<Record<string, string>>;
  /** The push's lease on the run's branch (finish-run.ts FinishRunDeps.branchLease). */
  branchLease?: (run: RunRecord) => string | undefined | Promise<string | undefined>;
  /** bwrap boxes: run the guard as an in-box server (default true; false: every hook alone). */
  guardServer?: boolean;
  /**
   * Start the next step's agent while a read-only step runs (warm-agents.ts). Default true; only
   * in bwrap boxes, which die with the runner (--die-with-parent) if it never gets to kill one.
   */
  warmStart?: boolean;
  /**
   * Run the repository's `setup:` commands in prepareRun (default true). False where the steps
   * run on other machines (Actions jobs), each running the setup itself: here prepareRun only
   * measures the base.
   */
  runSetup?: boolean;
}

export function createLocalRunner(opts: LocalRunnerOptions): StepRunner {
  // R4.8: the credentials this runner holds are searched, in every encoding, in everything it
  // scans — the diff before a push, outputs, the run output (src/secrets/known-secrets.ts).
  registerKnownSecrets(knownSecretsFromEnv(opts.hostEnv));
  if (opts.claudeCredentialsFile) registerLoginFile(opts.claudeCredentialsFile);
  const runDir = (id: string) => join(opts.forgeHome, "work", id);
  const forgeArgv = [process.execPath, join(opts.installRoot, "bin", "forge.js")];
  // Every box runs as an unprivileged user (as root: FORGE_BOX_UID) and sees the system's
  // directories, forgechain's toolbox and the deployment's toolchains only (run-box.ts): never
  // FORGE_HOME (gate.key, the journal, other runs, the runner's repositories) or the install
  // root's .env.
  // Only a bwrap box switches to the box user; the other kinds run as the runner, and their
  // directories stay the runner's.
  const boxUser: BoxUser =
    opts.boxKind === "bwrap"
      ? resolveBoxUser(opts.hostEnv)
      : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, switched: false };
  const runBox = (o: Omit<RunBoxOptions, "user" | "installRoot" | "env" | "ownWork">): Box =>
    createRunBox(opts.boxKind, {
      ...o,
      ownWork: opts.ownWork ?? false,
      user: boxUser,
      installRoot: opts.installRoot,
      env: opts.hostEnv,
    });

  const egress = createRunEgress({
    hostEnv: opts.hostEnv,
    boxKind: opts.boxKind,
    boxUser,
    installRoot: opts.installRoot,
    config: opts.config,
    agent: {
      provider: opts.provider.name,
      credentials: opts.provider.credentialEnv(opts.hostEnv),
      loginFile: opts.claudeCredentialsFile !== undefined,
    },
  });

  function boxFor(
    role: Role,
    workspace: string,
    home: string,
    extraRo: string[],
    binds?: ExtraBind[],
    network: NetworkSeam = egress.describedSeam,
  ): Box {
    const p = profileToBoxOptions(opts.profiles[role]);
    return runBox({
      workspace,
      home,
      readOnlyPaths: [...extraRo, ...(p.readOnlyRepo ? [workspace] : [])],
      writeSubpaths: p.writeSubpaths,
      denySubpaths: [...p.denySubpaths, opts.forgeHome],
      // The phase's door (egress-door.ts): the allowlist proxy, or the host network where the
      // deployment opted out or the box kind has no proxy (the run output says so).
      allowNetwork: false,
      network,
      ...(binds?.length ? { extraBinds: binds } : {}),
    });
  }

  /** A box for the runner's own git (laying a workspace out): `dir` writable, no network. */
  function gitBox(dir: string, home: string, readOnly: string[]): Box {
    return runBox({
      workspace: dir,
      home,
      readOnlyPaths: readOnly,
      denySubpaths: [opts.forgeHome],
      allowNetwork: false,
    });
  }

  const scrubbedEnv = (home: string) =>
    buildAgentEnv({ host: opts.hostEnv, home, providerCredentials: {}, extra: {} });
  const setupRules = () => egress.phaseRules();
  const layout: LayoutBoxes = {
    box: gitBox,
    env: { PATH: opts.hostEnv.PATH ?? "/usr/local/bin:/usr/bin:/bin" },
    handToBox: (dir) => handToBox(dir, boxUser),
  };
  const prepareDeps: StepPrepareDeps = {
    layout,
    boxUser,
    setupBinds: opts.boxKind === "bwrap",
  };
  const setupDeps: SetupPhaseDeps = {
    layout,
    boxUser,
    setupBox: (dir, home, readOnly, network) =>
      boxFor("builder", dir, home, readOnly, undefined, network),
    setupDoor: async () => egress.door({ phase: "setup", rules: (await setupRules()).setup }),
    setupEnv: async (home) => ({ ...scrubbedEnv(home), ...(await setupRules()).setupEnv }),
    forge: forgeArgv,
    timeoutMs: opts.controlTimeoutMs ?? 20 * 60_000,
  };
  const runs = createRunGitCache({
    runDir,
    ...(opts.remoteAuth ? { remoteAuth: opts.remoteAuth } : {}),
  });
  const warmAgents = createWarmAgents();
  const diffs = createDiffCache();
  const warmStarts = opts.warmStart !== false && opts.boxKind === "bwrap";
  // LocalRunnerOptions carries every launch dependency under the same name.
  const launchDeps: AgentLaunchDeps = { ...opts, boxFor, boxUser, egress };
  const stepDirOf = (runId: string, s: { index: number; role: Role; attempt: number }) =>
    join(runDir(runId), "steps", `${s.index}-${s.role}-${s.attempt}`);
  const warmKey = (runId: string, s: { index: number; role: Role; attempt: number }): WarmKey => ({
    runId,
    index: s.index,
    role: s.role,
    attempt: s.attempt,
  });
  const branchOf = (run: RunRecord) =>
    run.branch ?? branchName(run.task.title, run.task.number, run.id);

  /**
   * Start the next step's agent without its prompt (warm-agents.ts), in a workspace of its own
   * laid out now — at the agents' head as it is: behind the builder, the base, moved to the
   * builder's work when that step starts (step-prepare.ts).
   */
  function warmNext(
    input: StepInput,
    next: NonNullable<StepInput["next"]>,
    events: StepResult["events"],
  ): Promise<void> {
    return warmAgents.prepare(warmKey(input.run.id, next), async () => {
      const g = await runs.get(input.run);
      const stepDir = stepDirOf(input.run.id, next);
      const { setup } = await loadRunState(runDir(input.run.id));
      const laid = await layOutStep(prepareDeps, g, {
        role: next.role,
        readOnly: READ_ONLY_ROLES.has(next.role),
        stepDir,
        branch: branchOf(input.run),
        ...(setup ? { setup } : {}),
      });
      const prepared = await prepareAgent(launchDeps, {
        run: input.run,
        ...next,
        ws: laid.ws,
        stepDir,
        roleRepoDir: g.roleFilesDir,
      });
      // An agent that reads the tree at its start (a run frozen with settings that lack
      // `includeGitInstructions: false`) would keep a stale picture of a workspace that moves
      // before its prompt — the reviewer's, laid out before the builder's work exists: it
      // starts cold. Behind a read-only step the workspace stays as laid out.
      if (prepared.readsTreeAtStart && input.role === "builder") return null;
      if (input.signal.aborted || !opts.provider.promptOnStdin) return null;
      const before = prepared.readOnly ? await manifestOf(laid.ws.dir) : null;
      const launched = await launchAgent(launchDeps, prepared, invocationFor(launchDeps, prepared));
      launched.handle.hold(false);
      events.push({
        type: "agent.warm_started",
        data: { next, startedAt: new Date().toISOString() },
      });
      return { prepared, launched, before, commit: laid.commit };
    });
  }

  const ctx: StepContext = {
    opts,
    runs,
    diffs,
    launchDeps,
    prepareDeps,
    layout,
    boxFor,
    scrubbedEnv,
    egress,
    forgeArgv,
    runDir,
    stepDirOf,
    branchOf,
    takeWarm: (input) => warmAgents.take(warmKey(input.run.id, input)),
    warmNext: (input, next, events) =>
      input.next && warmStarts && opts.provider.promptOnStdin && !input.signal.aborted
        ? warmNext(input, next, events)
        : Promise.resolve(),
    commitFor,
  };

  /** The setup phase (setup-phase.ts): once per run, before its first step. */
  async function prepareRun({ run }: { run: RunRecord }): Promise<RunPreparation> {
    const commands = opts.config && opts.runSetup !== false ? setupToRun(opts.config) : [];
    const g = await runs.get(run);
    const runPatch = { baseSha: g.base.baseSha, branch: branchOf(run) };
    const modeEvent = egress.modeEvent();
    if (commands.length === 0) return { ok: true, reasons: [], events: [modeEvent], runPatch };
    const dir = runDir(run.id);
    const r = await runSetupPhase(setupDeps, g, {
      dir: join(dir, "setup"),
      branch: branchOf(run),
      // A review sets up the head under review; a change the base the builder starts from.
      commit: run.chain === "review" ? g.base.agentHead : g.base.agentBase,
      commands,
    });
    const state = await loadRunState(dir);
    const denied = keepDenials(state, r.events);
    if (r.setup) state.setup = r.setup;
    if (r.setup || denied) await saveRunState(dir, state);
    return { ok: r.ok, reasons: r.reasons, events: [modeEvent, ...r.events], runPatch };
  }

  async function runStep(input: StepInput): Promise<StepResult> {
    // A warm successor lives only as long as this step may still PASS into it.
    const onAbort = () => void warmAgents.discard(input.run.id);
    input.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await mkdir(runDir(input.run.id), { recursive: true });
      const result = await runOneStep(ctx, input);
      const state = await loadRunState(runDir(input.run.id));
      if (keepDenials(state, result.events)) await saveRunState(runDir(input.run.id), state);
      // Only the engine knows the verdict; a step that failed here, or whose output claims no
      // PASS or asks a human, will not PASS into its warm successor, so it is stopped now.
      const claims = outputClaims(input.role, result.agentOutput);
      if (result.failures.length > 0 || !claims.pass || claims.asks) {
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

  const finishRun = createFinishRun({
    runDir,
    config: opts.config,
    ...(opts.remoteAuth ? { remoteAuth: opts.remoteAuth } : {}),
    ...(opts.branchLease ? { branchLease: opts.branchLease } : {}),
    beforeFinish: async (runId) => {
      runs.forget(runId);
      await warmAgents.discard(runId);
    },
    diffs,
    network: (state) => egress.network(state.denied ?? []),
  });

  return { prepareRun, runStep, finishRun };
}
