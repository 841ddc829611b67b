// What the runner measures after a step's agent ended — never its verdict: the engine judges
// (src/chain/judge.ts) from the agent's output and these facts. The transcript, how the process
// ended, the role gate, write detection for a read-only step, and — for a builder whose output
// claims PASS — its work brought back and checked (builder-checks.ts).
import { join } from "node:path";
import type { StepResult } from "../chain/ports.js";
import { outputClaims } from "../roles/verdict.js";
import { redactSecrets } from "../secrets/index.js";
import { checkBuilderWork } from "./builder-checks.js";
import { saveRunState } from "./run-state.js";
import type { Ran, StepContext, StepScope } from "./run-step.js";
import { processReasons, roleGateOutcome } from "./step-outcome.js";
import { usageOfStream } from "./step-usage.js";
import { detectWrites } from "./tree-manifest.js";

const TRANSCRIPT_CAP = 512 * 1024;

export async function measureStep(
  c: StepContext,
  s: StepScope,
  r: Ran,
): Promise<Omit<StepResult, "runPatch">> {
  const { role, attempt } = s.input;
  const { proc, prepared } = r;
  const transcript = (await redactSecrets(proc.stdout.slice(-TRANSCRIPT_CAP))).text;
  const parsed = c.opts.provider.parseResult(proc.stdout);
  const raw = parsed.raw as { usage?: unknown } | null;
  s.events.push({
    type: "step.transcript",
    data: {
      role,
      attempt,
      bytes: proc.stdout.length,
      truncated: proc.stdout.length > TRANSCRIPT_CAP,
      turns: proc.turns,
      // What the step cost, beside the stream (the sticky comment and forge status read it).
      costUsd: parsed.costUsd ?? null,
      usage: raw?.usage ?? null,
      stream: transcript,
    },
  });
  const usage = usageOfStream(proc.stdout);
  if (usage) {
    s.state.usage = [...(s.state.usage ?? []), { index: s.input.index, role, attempt, usage }];
    await saveRunState(c.runDir(s.input.run.id), s.state);
  }
  const gate = await roleGateOutcome(
    prepared.ledgerFile,
    join(s.stepDir, "ledger.jsonl"),
    proc.stoppedBy,
  );
  if (gate) s.events.push({ type: "role_gate.violation", data: { role, ...gate } });
  const failures = await processReasons(proc, {
    timeoutMs: r.timeoutMs,
    maxTurns: prepared.providerOpts.maxTurns,
    gate: gate?.detail,
  });
  s.clock.mark("outcome");
  // R4.5 / R2.7: a read-only step that changed its workspace FAILs; the workspace is this
  // step's alone, so its changes go with it.
  if (r.before) {
    const wrote = await detectWrites(r.ws.dir, r.before, role);
    if (wrote) {
      s.events.push(wrote.event);
      failures.push(wrote.reason);
    }
  }
  s.clock.mark("write-check");
  // The builder's checks take minutes and import its work: the runner spends them only on a
  // builder that claims PASS with nothing failed so far — for the builder that claim is exactly
  // the engine's PASS, so they run when, and only when, they can still change the verdict.
  // The claim decides what is measured, never the verdict.
  const agentOutput = parsed.raw ?? null;
  if (role === "builder" && failures.length === 0 && outputClaims(role, agentOutput).pass) {
    failures.push(...(await checkBuilder(c, s, r)));
  }
  s.clock.mark("after");
  s.events.push({ type: "step.timings", data: { role, attempt, phases: s.clock.phases() } });
  return {
    agentOutput,
    failures,
    ...(r.realDiff ? { diff: r.realDiff.diff } : {}),
    events: s.events,
  };
}

/** The builder's work imported, verify and the controls run on it: the reasons it FAILs. */
async function checkBuilder(c: StepContext, s: StepScope, r: Ran): Promise<string[]> {
  const { opts } = c;
  const { run, role } = s.input;
  const { home, settingsFile } = r.prepared;
  const checked = await checkBuilderWork({
    work: {
      // Committing and bundling the builder's work needs no network at all.
      box: c.boxFor(role, r.ws.dir, home, [settingsFile, s.g.repos.agents], undefined, {
        mode: "none",
      }),
      ws: r.ws.dir,
      env: c.scrubbedEnv(home),
      repos: s.g.repos,
      base: s.g.base,
      stepDir: s.stepDir,
      runId: run.id,
      title: run.task.title,
      timeoutMs: opts.controlTimeoutMs ?? 10 * 60_000,
    },
    branch: s.branch,
    config: opts.config,
    ...(opts.controlTimeoutMs !== undefined ? { controlTimeoutMs: opts.controlTimeoutMs } : {}),
    ...(opts.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: opts.verifyTimeoutMs } : {}),
    layout: c.layout,
    controlsDir: join(s.stepDir, "controls"),
    controlsBox: (dir, h, extra, binds, network) => c.boxFor(role, dir, h, extra, binds, network),
    ...(s.state.setup ? { setup: s.state.setup } : {}),
    setupBox: (dir, h, network) => c.boxFor(role, dir, h, [], undefined, network),
    door: async (phase) => {
      const rules = await c.egress.phaseRules();
      return c.egress.door({
        phase,
        role,
        index: s.input.index,
        rules: phase === "setup" ? rules.setup : rules.controls,
      });
    },
    setupEnv: async (home) => ({
      ...c.scrubbedEnv(home),
      ...(await c.egress.phaseRules()).setupEnv,
    }),
    controlsEnv: c.scrubbedEnv,
    forge: c.forgeArgv,
    state: s.state,
    saveState: () => saveRunState(c.runDir(run.id), s.state),
  });
  s.events.push(...checked.events);
  if (checked.work) c.runs.setWork(run.id, checked.work);
  return checked.reasons;
}
