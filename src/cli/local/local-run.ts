// One local run, end to end: policy (refused before anything runs), the box proof, the frozen
// snapshot, the engine driving the runner, progress, Ctrl-C, and the final report.
import { join } from "node:path";
import { harnessFact } from "../../boxes/proof-current.js";
import type { BoxKind } from "../../boxes/types.js";
import type { RunEvent, RunRecord, StepRecord, TaskInput } from "../../chain/types.js";
import { ConfigError, formatIssue, loadProfiles } from "../../policy/index.js";
import { loadRepoPolicy, type RepoPolicy } from "../../policy/repo-policy.js";
import { resolveClaudeBinary } from "../../providers/claude.js";
import type { ProviderName } from "../../providers/types.js";
import type { ChainKind, Role } from "../../roles/role-names.js";
import { gitLine } from "../../runner/git.js";
import { buildSnapshotContent } from "../../runner/snapshot-content.js";
import { whileHandlingSignals } from "../interrupt.js";
import { ensureBoxProof } from "./box-gate.js";
import { gitRunnerIn } from "./git-runner.js";
import { progressView } from "./progress.js";
import { openLocalStack, openStore } from "./stack.js";

export interface LocalRunInput {
  root: string;
  forgeHome: string;
  env: Record<string, string | undefined>;
  repo: string;
  chain: ChainKind;
  task: TaskInput;
  base?: string;
  head?: string;
  box: BoxKind;
  ownWork: boolean;
  provider: ProviderName;
  loginFile?: string;
  out: { write(s: string): unknown; isTTY?: boolean };
  json: boolean;
  roles: readonly Role[];
  /** A label printed first, e.g. "scripted model (demo)". */
  banner?: string;
  stepTimeoutMs?: number;
}

export interface LocalRunResult {
  exitCode: number;
  run: RunRecord | null;
  steps: StepRecord[];
  runOutputPath: string | null;
  events: RunEvent[];
}

export async function executeLocalRun(input: LocalRunInput): Promise<LocalRunResult> {
  const say = (s: string) => {
    if (!input.json) input.out.write(s);
  };
  if (input.banner) say(`${input.banner}\n`);
  let policy: RepoPolicy;
  try {
    policy = await loadRepoPolicy(input.repo, {
      git: gitRunnerIn(input.repo),
      profiles: loadProfiles(join(input.root, "profiles")),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const issue of error.issues) process.stderr.write(`${formatIssue(issue)}\n`);
    process.stderr.write("forge run: the repository's config is refused; nothing ran\n");
    return { exitCode: 1, run: null, steps: [], runOutputPath: null, events: [] };
  }
  for (const w of policy.warnings) say(`warning: ${formatIssue(w)}\n`);

  const base = input.base ?? (await currentBranch(input.repo));
  const store = openStore(input.forgeHome);
  let closed = false;
  try {
    say(`box: checking the ${input.box} proof for ${input.repo}\n`);
    const gate = await ensureBoxProof({
      store,
      repo: input.repo,
      box: input.box as "bwrap" | "worktree",
      config: policy.config,
      root: input.root,
      forgeHome: input.forgeHome,
      env: input.env,
      ownWork: input.ownWork,
      ...(input.loginFile ? { loginFile: input.loginFile } : {}),
      onCheck: (c) =>
        say(`  ${c.ok ? "ok  " : c.skipped ? "skip" : "FAIL"} ${c.name}: ${c.detail}\n`),
    });
    if (gate.failure) {
      process.stderr.write(`forge run: ${gate.failure}\n`);
      return { exitCode: 1, run: null, steps: [], runOutputPath: null, events: [] };
    }
    say(gate.proved ? "box: proved\n" : "box: valid proof on record\n");

    const snapshotContent = await buildSnapshotContent({
      installRoot: input.root,
      remote: input.repo,
      ref: base,
      provider: {
        name: input.provider,
        version:
          input.provider === "claude"
            ? await harnessFact(resolveClaudeBinary(input.root))
            : "unknown",
      },
      registry: { revision: policy.registry.revision, digest: policy.registry.digest },
    });
    const view = progressView(input.json ? { write: () => true } : input.out, input.roles);
    const stack = openLocalStack(
      {
        root: input.root,
        forgeHome: input.forgeHome,
        env: input.env,
        box: input.box,
        ownWork: input.ownWork,
        provider: input.provider,
        policy,
        observer: view,
        ...(input.loginFile ? { loginFile: input.loginFile } : {}),
        ...(input.stepTimeoutMs ? { stepTimeoutMs: input.stepTimeoutMs } : {}),
      },
      store,
    );
    const run = await stack.engine.startRun({
      chain: input.chain,
      task: input.task,
      repo: {
        remote: input.repo,
        baseRef: base,
        ...(input.chain === "review" ? { headRef: input.head ?? "HEAD" } : {}),
      },
      snapshotContent,
      requestBudget: policy.config.budgets.requestBudget.value,
    });
    say(`run ${run.id} (${input.chain} chain, base ${base})\n`);
    const onSigint = (_signal: string, count: number) => {
      if (count > 1) return say("\nstill cancelling…\n");
      say("\ncancelling (Ctrl-C)…\n");
      void stack.engine.cancel(run.id, "cancelled by Ctrl-C on the terminal");
    };
    let final: RunRecord;
    try {
      final = await whileHandlingSignals(["SIGINT"], onSigint, () => stack.engine.drive(run.id));
    } finally {
      view.stop();
    }
    const status = await stack.engine.status(run.id, { eventLimit: 200 });
    const events = await store.events(run.id);
    const finished = [...events].reverse().find((e) => e.type === "run.finished");
    const runOutputPath = (finished?.data.runOutputPath as string | null | undefined) ?? null;
    const result: LocalRunResult = {
      exitCode: final.state === "passed" ? 0 : 1,
      run: final,
      steps: status.steps,
      runOutputPath,
      events,
    };
    if (input.json) {
      input.out.write(
        `${JSON.stringify(
          {
            run: final.id,
            state: final.state,
            verdicts: status.steps.map((s) => ({
              role: s.role,
              state: s.state,
              decision: s.decision,
            })),
            runOutputPath,
            branch: final.branch,
            pendingRequests: status.pendingRequests,
          },
          null,
          2,
        )}\n`,
      );
    } else {
      say(report(final, status.steps, runOutputPath, events, status.pendingRequests));
    }
    await stack.close();
    closed = true;
    return result;
  } finally {
    if (!closed) await store.close();
  }
}

function report(
  run: RunRecord,
  steps: StepRecord[],
  runOutputPath: string | null,
  events: RunEvent[],
  pending: Array<{ id: string; question: string }>,
): string {
  const lines = ["", `run ${run.id}: ${run.state.toUpperCase()}`];
  for (const s of steps) {
    const verdict = s.decision?.verdict ?? s.state;
    lines.push(
      `  ${s.role.padEnd(10)} ${verdict}${s.decision?.overridden ? " (engine override)" : ""}`,
    );
    if (s.decision && s.decision.verdict === "FAIL") {
      for (const r of s.decision.reasons.slice(0, 5))
        lines.push(`             - ${r.slice(0, 300)}`);
    }
  }
  const refusals = events.filter((e) => e.type === "runner.step.wrote");
  for (const r of refusals) lines.push(`  ! ${String(r.data.message)}`);
  if (run.branch) lines.push(`branch: ${run.branch}`);
  if (runOutputPath) lines.push(`run output: ${runOutputPath}`);
  for (const p of pending) lines.push(`question ${p.id}: ${p.question}`);
  if (pending.length > 0) lines.push(`answer it, then resume (see \`forge status ${run.id}\`)`);
  lines.push("");
  return lines.join("\n");
}

async function currentBranch(repo: string): Promise<string> {
  const name = await gitLine(["rev-parse", "--abbrev-ref", "HEAD"], { cwd: repo });
  return name === "HEAD" ? gitLine(["rev-parse", "HEAD"], { cwd: repo }) : name;
}
