/**
 * Starting a chain for a GitHub trigger, in the background job (never in the webhook
 * handler): fork refusal, the actor's permission from the API (R1.4) before anything is
 * cloned, the repository's policy from its default branch, the label and chain switches, the
 * repository's `trusted:` list when the API said no, one active change run per issue,
 * superseding a PR's older review (R1.2), the branch a change run pushes to (branch-plan.ts),
 * the box proof (R7.2), the frozen snapshot (R8.5), then the engine. Every refusal is a short
 * reply on the issue or PR; a failure is answered too (job-failure.ts), never silence.
 */
import { join } from "node:path";
import type { TaskInput } from "../chain/types.js";
import { ConfigError, formatIssue, loadProfiles, type RepoPolicy } from "../policy/index.js";
import type { ChainKind } from "../roles/role-names.js";
import { type BranchPlan, planBranch } from "./branch-plan.js";
import type { Actor, PullInfo, RepoInfo } from "./events.js";
import { gitAuthEnv, repoRemote } from "./git-auth.js";
import { type JobTrace, reportRunFailure } from "./job-failure.js";
import { SUPERSEDED } from "./reporter.js";
import { fence } from "./reporter-render.js";
import { ACTIVE_STATES, type GitHubRunContext } from "./run-context.js";
import type { AppServices } from "./services.js";
import { checkTrust, onTrustedList } from "./trust.js";

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
    | { kind: "command" }
    /** A workflow_dispatch naming the issue: asked for by name, as a command is. */
    | { kind: "dispatch" };
}

export type StartOutcome =
  | { started: true; runId: string }
  | { started: false; replied: boolean; reason: string };

export async function startChain(
  req: StartRequest,
  s: AppServices,
  trace: JobTrace = traceForStart(req),
): Promise<StartOutcome> {
  const { settings } = s;
  trace.stage = "getting access to the repository from GitHub";
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
  // R1.4, before anything is cloned: the API (and the deployment's own lists). The
  // repository's `trusted:` list needs its config, so it is read only when this says no.
  trace.stage = "asking GitHub for your permission";
  const trust = await checkTrust(req.actor, req.repo, {
    port,
    trusted: [...settings.trusted, ...(settings.deployment?.trusted ?? [])],
  });
  if (!trust.trusted && req.actor.isBot)
    return reply("untrusted", `@${req.actor.login}: ${trust.reason}. Nothing ran.`);

  const read = await readRepository(req, s, trace);
  if ("refusal" in read) {
    if (trace.ours === "sure") return reply("config", read.refusal);
    s.logger.warn({ delivery: req.delivery }, "config refused; the event may not be forge's");
    return quiet("config refused");
  }
  const { mirrorDir, policy } = read;
  const config = policy.config;
  const notOurs = await notATrigger(req, config, s);
  if (notOurs) return quiet(notOurs);
  trace.ours = "sure";
  if (!config.chains[req.chain].enabled.value) {
    return reply(
      "disabled",
      `${req.chain} chains are switched off in this repository's \`.github/forge.yml\`.`,
    );
  }
  const listed = onTrustedList(
    req.actor,
    config.trusted.map((x) => x.login),
  );
  if (!trust.trusted && !listed)
    return reply("untrusted", `@${req.actor.login}: ${trust.reason}. Nothing ran.`);

  trace.stage = "looking for runs already working on this";
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
  trace.stage = "choosing the branch to push to";
  const branch =
    req.chain === "change"
      ? await planBranch({
          task: req.task,
          earlier: await s.index.runsOn(req.repo.fullName, req.number),
          events: (id) => s.store.events(id),
          heads: (names) => s.mirrors.heads(mirrorDir, names),
        })
      : null;
  trace.stage = "checking the box proof";
  const refusal = await s.boxGate.check({ mirrorDir, config });
  if (refusal) return reply("box", `forgechain cannot run here yet: ${refusal}`);

  return launchRun(req, s, trace, { ...read, branch });
}

/** The frozen snapshot with its GitHub context (R8.5), the run, and its drive. */
async function launchRun(
  req: StartRequest,
  s: AppServices,
  trace: JobTrace,
  read: { remote: string; mirrorDir: string; policy: RepoPolicy; branch: BranchPlan | null },
): Promise<StartOutcome> {
  const { remote, mirrorDir, policy, branch } = read;
  const config = policy.config;
  trace.stage = "freezing the run's snapshot";
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
    ...(branch ? { branch } : {}),
  };
  const snapshot = await s.snapshots.build({
    mirrorDir,
    ref: baseRef,
    registry: { revision: policy.registry.revision, digest: policy.registry.digest },
    config: policy.config,
  });
  trace.stage = "starting the run";
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
  trace.runId = run.id;
  const runTrace = { ...trace, runId: run.id };
  s.engine.drive(run.id).catch((err: unknown) => reportRunFailure(err, runTrace, s));
  s.logger.info(
    { runId: run.id, chain: req.chain, repo: req.repo.fullName, number: req.number },
    "run started",
  );
  return { started: true, runId: run.id };
}

/**
 * Why the event is no trigger under the repository's config (the label or PR action it does
 * not name), or null. A PR event supersedes the PR's running reviews of older heads first.
 */
async function notATrigger(
  req: StartRequest,
  config: RepoPolicy["config"],
  s: AppServices,
): Promise<string | null> {
  const t = req.trigger;
  if (t.kind === "label") {
    const wanted = req.chain === "change" ? config.labels.change.value : config.labels.review.value;
    if (t.label !== wanted) return `label ${t.label} is not ${wanted}`;
  }
  if (req.chain === "review" && req.pull) {
    await supersedeReviews(req, s);
    if (t.kind === "pull-action") {
      const onEvent = config.chains.review.events.value.includes(t.action);
      const labelled = req.pull.labels.includes(config.labels.review.value);
      if (!onEvent && !(t.action === "synchronize" && labelled))
        return `${t.action} is not configured`;
    }
  }
  return null;
}

/** The trace of a start that did not come with one (a caller outside a queued job). */
function traceForStart(req: StartRequest): JobTrace {
  return {
    stage: "starting",
    ours: "sure",
    retry: "try again",
    number: req.number,
    installationId: req.installationId,
    repo: req.repo,
  };
}

/**
 * The mirror, fetched with the installation token, and the policy from its default branch.
 * A refused config is a reply (when the event is ours); a fetch that fails, or a default
 * branch the repository lacks, throws to the job (job-failure.ts answers it).
 */
async function readRepository(
  req: StartRequest,
  s: AppServices,
  trace: JobTrace,
): Promise<{ remote: string; mirrorDir: string; policy: RepoPolicy } | { refusal: string }> {
  const { settings } = s;
  trace.stage = "fetching the repository";
  const remote = repoRemote(settings.gitBase, req.repo.owner, req.repo.name);
  const gitEnv = gitAuthEnv(await s.installations.token(req.installationId));
  const mirrorDir = await s.mirrors.sync({
    owner: req.repo.owner,
    repo: req.repo.name,
    remote,
    defaultBranch: req.repo.defaultBranch,
    gitEnv,
  });
  trace.stage = "reading `.github/forge.yml`";
  try {
    const policy = await s.mirrors.policy(mirrorDir, {
      profiles: loadProfiles(join(settings.installRoot, "profiles")),
      ...(settings.deployment ? { deployment: settings.deployment } : {}),
    });
    const labels = policy.config.labels;
    s.triggerLabels.set(req.repo.fullName, [labels.change.value, labels.review.value]);
    return { remote, mirrorDir, policy };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const issues = err.issues.slice(0, 20).map(formatIssue).join("\n");
    return {
      refusal: `forgechain refuses this repository's \`.github/forge.yml\` (default branch); nothing ran:\n\n${fence(issues, 6000)}`,
    };
  }
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
