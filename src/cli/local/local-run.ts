// One local run, end to end: policy (refused before anything runs), the model endpoint, the
// box proof, the frozen snapshot, then the engine driving the runner (local-drive.ts).
// `forge resume` goes through the same checks (prepareLocal) before it drives a run again.

import { join } from "node:path";
import { harnessFact } from "../../boxes/proof-current.js";
import type { BoxKind } from "../../boxes/types.js";
import type { JournalStore } from "../../chain/ports.js";
import type { TaskInput } from "../../chain/types.js";
import {
  ConfigError,
  DEFAULT_DEPLOYMENT,
  formatIssue,
  loadProfiles,
  withDeploymentEgress,
} from "../../policy/index.js";
import { loadRepoPolicy, type RepoPolicy } from "../../policy/repo-policy.js";
import { resolveClaudeBinary } from "../../providers/claude.js";
import type { ProviderName } from "../../providers/types.js";
import type { ChainKind, Role } from "../../roles/role-names.js";
import { ensureBoxProof } from "../../runner/box-gate.js";
import { gitLine } from "../../runner/git.js";
import { gitRunnerIn } from "../../runner/git-runner.js";
import { buildSnapshotContent } from "../../runner/snapshot-content.js";
import { cliEgressCheck, cliRunnerLimits as runnerLimits } from "./cli-limits.js";
import { checkModelEndpoint } from "./endpoint-check.js";
import { driveLocal, type LocalRunResult } from "./local-drive.js";
import { orphanedRuns, orphanNotice } from "./orphans.js";
import { progressView } from "./progress.js";
import { openLocalStack, openStore } from "./stack.js";

export type { LocalRunResult };

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
  out: { write(s: string): unknown; isTTY?: boolean; columns?: number };
  json: boolean;
  roles: readonly Role[];
  /** A label printed first, e.g. "scripted model (demo)". */
  banner?: string;
  stepTimeoutMs?: number;
}

/** What a run and a resume check first; `forge resume` passes the run's own repository. */
export type PrepareInput = Pick<
  LocalRunInput,
  | "root"
  | "forgeHome"
  | "env"
  | "repo"
  | "box"
  | "ownWork"
  | "provider"
  | "loginFile"
  | "out"
  | "json"
>;

const nothingRan = (): LocalRunResult => ({
  exitCode: 1,
  run: null,
  steps: [],
  runOutputPath: null,
  events: [],
});

/**
 * The repository's policy, the model endpoint and the box proof, in that order; each refusal
 * is printed and ends it (`exitCode` set) before any run state changes.
 */
export async function prepareLocal(
  input: PrepareInput,
  command: string,
): Promise<{ policy: RepoPolicy; store: JournalStore } | { result: LocalRunResult }> {
  const say = (s: string) => {
    if (!input.json) input.out.write(s);
  };
  runnerLimits(input.env); // a bad FORGE_IDLE_TIMEOUT / FORGE_VERIFY_TIMEOUT stops it here
  cliEgressCheck(input.env); // and a bad FORGE_EGRESS / FORGE_EGRESS_SETUP / _CONTROLS
  let policy: RepoPolicy;
  try {
    policy = await loadRepoPolicy(input.repo, {
      git: gitRunnerIn(input.repo),
      profiles: loadProfiles(join(input.root, "profiles")),
      // FORGE_EGRESS_SETUP / _CONTROLS: the deployment's hosts, first in every list.
      deployment: withDeploymentEgress(DEFAULT_DEPLOYMENT, input.env),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const issue of error.issues) process.stderr.write(`${formatIssue(issue)}\n`);
    process.stderr.write(`${command}: the repository's config is refused; nothing ran\n`);
    return { result: nothingRan() };
  }
  for (const w of policy.warnings) say(`warning: ${formatIssue(w)}\n`);
  // With the endpoint down the first agent only retries, for minutes: say so now.
  const endpoint = await checkModelEndpoint(input.provider, input.env);
  if (!endpoint.ok) {
    process.stderr.write(`${command}: ${endpoint.message}\n`);
    return { result: nothingRan() };
  }
  if (endpoint.note) say(`model endpoint: ${endpoint.note}\n`);
  const store = openStore(input.forgeHome, input.env);
  try {
    for (const o of await orphanedRuns(store)) say(`note: ${orphanNotice(o)}\n`);
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
      process.stderr.write(`${command}: ${gate.failure}\n`);
      await store.close();
      return { result: nothingRan() };
    }
    say(gate.proved ? "box: proved\n" : "box: valid proof on record\n");
    return { policy, store };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export async function executeLocalRun(input: LocalRunInput): Promise<LocalRunResult> {
  if (input.banner && !input.json) input.out.write(`${input.banner}\n`);
  const prepared = await prepareLocal(input, "forge run");
  if ("result" in prepared) return prepared.result;
  const { policy, store } = prepared;
  let closed = false;
  try {
    const base = input.base ?? (await currentBranch(input.repo));

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
      config: policy.config,
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
        command: "forge run",
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
    if (!input.json) view.note(`run ${run.id} (${input.chain} chain, base ${base})`);
    const result = await driveLocal({
      stack,
      view,
      runId: run.id,
      out: input.out,
      json: input.json,
    });
    await stack.close();
    closed = true;
    return result;
  } finally {
    if (!closed) await store.close();
  }
}

async function currentBranch(repo: string): Promise<string> {
  const name = await gitLine(["rev-parse", "--abbrev-ref", "HEAD"], { cwd: repo });
  return name === "HEAD" ? gitLine(["rev-parse", "HEAD"], { cwd: repo }) : name;
}
