/**
 * Starting a chain for a GitHub trigger, in the background job (never in the webhook
 * handler): fork refusal, the repository's policy from its default branch, the label and
 * chain switches, trust (R1.4), one active change run per issue, superseding a PR's older
 * review (R1.2), the box proof (R7.2), the frozen snapshot (R8.5), then the engine.
 * Every refusal is a short reply on the issue or PR, never silence.
 */
import { join } from "node:path";
import type { TaskInput } from "../chain/types.js";
import { ConfigError, formatIssue, loadProfiles, type RepoPolicy } from "../policy/index.js";
import type { ChainKind } from "../roles/role-names.js";
import type { Actor, PullInfo, RepoInfo } from "./events.js";
import { gitAuthEnv, repoRemote } from "./git-auth.js";
import { SUPERSEDED } from "./reporter.js";
import { fence } from "./reporter-render.js";
import { ACTIVE_STATES, type GitHubRunContext } from "./run-context.js";
import type { AppServices } from "./services.js";
import { checkTrust } from "./trust.js";

export interface StartRequest {
  chain: ChainKind;
  installationId: number;
  repo: RepoInfo;
  /** Issue (change chain) or PR (review chain) number. */
  number: number;
  task: TaskInput;
  pull?: PullInfo;
  actor: Actor;
  delivery: string;
  event: string;
  /** What must match the repository's config before this is a forge trigger at all. */
  trigger:
    | { kind: "label"; label: string }
    | { kind: "pull-action"; action: "opened" | "synchronize" }
    | { kind: "command" };
}

export type StartOutcome =
  | { started: true; runId: string }
  | { started: false; replied: boolean; reason: string };

export async function startChain(req: StartRequest, s: AppServices): Promise<StartOutcome> {
  const { settings } = s;
  const port = await s.installations.port(req.installationId);
  const reply = async (reason: string, body: string): Promise<StartOutcome> => {
    await port.postReply({
      owner: req.repo.owner,
      repo: req.repo.name,
      issueNumber: req.number,
      body,
    });
    return { started: false, replied: true, reason };
  };
  const quiet = (reason: string): StartOutcome => ({ started: false, replied: false, reason });

  if (req.pull?.fromFork) {
    // SPEC §11: fork PRs never get secrets. A review runs agents that hold model
    // credentials over the fork's code (and controls execute it), so it is refused.
    return reply(
      "fork",
      "forgechain does not review pull requests from forks: its agents hold model credentials while they read (and the controls run) the fork's code. A maintainer can push the branch to this repository and label that pull request.",
    );
  }
  const remote = repoRemote(settings.gitBase, req.repo.owner, req.repo.name);
  const gitEnv = gitAuthEnv(await s.installations.token(req.installationId));
  const mirrorDir = await s.mirrors.sync({
    owner: req.repo.owner,
    repo: req.repo.name,
    remote,
    defaultBranch: req.repo.defaultBranch,
    gitEnv,
  });
  let policy: RepoPolicy;
  try {
    policy = await s.mirrors.policy(mirrorDir, {
      profiles: loadProfiles(join(settings.installRoot, "profiles")),
      ...(settings.deployment ? { deployment: settings.deployment } : {}),
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const issues = err.issues.slice(0, 20).map(formatIssue).join("\n");
    return reply(
      "config",
      `forgechain refuses this repository's \`.github/forge.yml\` (default branch); nothing ran:\n\n${fence(issues, 6000)}`,
    );
  }
  const config = policy.config;
  const t = req.trigger;
  if (t.kind === "label") {
    const wanted = req.chain === "change" ? config.labels.change.value : config.labels.review.value;
    if (t.label !== wanted) return quiet(`label ${t.label} is not ${wanted}`);
  }
  if (req.chain === "review" && req.pull) {
    await supersedeReviews(req, s);
    if (t.kind === "pull-action") {
      const onEvent = config.chains.review.events.value.includes(t.action);
      const labelled = req.pull.labels.includes(config.labels.review.value);
      if (!onEvent && !(t.action === "synchronize" && labelled))
        return quiet(`${t.action} is not configured`);
    }
  }
  if (!config.chains[req.chain].enabled.value) {
    return reply(
      "disabled",
      `${req.chain} chains are switched off in this repository's \`.github/forge.yml\`.`,
    );
  }
  const trust = await checkTrust(req.actor, req.repo, {
    port,
    trusted: [...settings.trusted, ...config.trusted.map((x) => x.login)],
  });
  if (!trust.trusted)
    return reply("untrusted", `@${req.actor.login}: ${trust.reason}. Nothing ran.`);

  const active = await s.index.runsOn(req.repo.fullName, req.number, ACTIVE_STATES);
  const same = active.find(
    (r) =>
      r.chain === req.chain && (req.chain === "change" || r.repo.headRef === req.pull?.headSha),
  );
  if (same) {
    return reply(
      "active",
      `run \`${same.id}\` is already working on this ${req.chain === "change" ? "issue" : "head"} (${same.state}); \`/forge cancel ${same.id}\` stops it.`,
    );
  }
  const refusal = await s.boxGate.check({ mirrorDir, config });
  if (refusal) return reply("box", `forgechain cannot run here yet: ${refusal}`);

  const baseRef = req.pull ? req.pull.baseRef : req.repo.defaultBranch;
  const github: GitHubRunContext = {
    installationId: req.installationId,
    owner: req.repo.owner,
    repo: req.repo.name,
    fullName: req.repo.fullName,
    issueNumber: req.number,
    ...(req.pull
      ? { pull: { number: req.pull.number, nodeId: req.pull.nodeId, headSha: req.pull.headSha } }
      : {}),
    trigger: { event: req.event, delivery: req.delivery, actor: req.actor.login },
  };
  const snapshot = await s.snapshots.build({
    mirrorDir,
    ref: baseRef,
    registry: { revision: policy.registry.revision, digest: policy.registry.digest },
  });
  const run = await s.engine.startRun({
    chain: req.chain,
    task: req.task,
    repo: {
      remote,
      baseRef,
      fullName: req.repo.fullName,
      // The exact head that triggered, never the branch name: a later push is a new review.
      ...(req.pull ? { headRef: req.pull.headSha } : {}),
    },
    snapshotContent: { ...snapshot, config, github },
    requestBudget: config.budgets.requestBudget.value,
  });
  s.index.add(run, github);
  s.engine.drive(run.id).catch((err: unknown) => {
    s.logger.error(
      { runId: run.id, err: err instanceof Error ? err.message : String(err) },
      "drive failed",
    );
  });
  s.logger.info(
    { runId: run.id, chain: req.chain, repo: req.repo.fullName, number: req.number },
    "run started",
  );
  return { started: true, runId: run.id };
}

/** R1.2: a new head cancels the PR's running review of an older head; its verdicts are void. */
export async function supersedeReviews(req: StartRequest, s: AppServices): Promise<string[]> {
  if (!req.pull) return [];
  const cancelled: string[] = [];
  for (const run of await s.index.runsOn(req.repo.fullName, req.pull.number, ACTIVE_STATES)) {
    if (run.chain !== "review" || run.repo.headRef === req.pull.headSha) continue;
    await s.engine.cancel(run.id, `${SUPERSEDED} by the new head ${req.pull.headSha.slice(0, 12)}`);
    cancelled.push(run.id);
  }
  return cancelled;
}
