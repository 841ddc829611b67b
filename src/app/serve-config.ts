/**
 * Every variable `forge serve` reads, in one table: `forge serve --help` prints it and
 * `.env.example` documents the same names. Probot reads its own (APP_ID … LOG_LEVEL); the
 * rest are forgechain's.
 */
import type { BoxKind } from "../boxes/types.js";
import { ghesActionsIssuer } from "../github/index.js";
import { RunnerLimitError, type RunnerLimits, runnerLimits } from "../runner/index.js";
import { DEFAULT_WORKFLOW } from "./actions-steps.js";
import { gitWebBase } from "./git-auth.js";
import { parseTrustedList } from "./trust.js";

export interface EnvVar {
  name: string;
  what: string;
}

export const SERVE_ENV: ReadonlyArray<{ group: string; vars: EnvVar[] }> = [
  {
    group: "GitHub App (read by Probot; without APP_ID and a key, Probot's setup flow starts)",
    vars: [
      { name: "APP_ID", what: "the App's id" },
      { name: "PRIVATE_KEY", what: "the App's private key (PEM), or use PRIVATE_KEY_PATH" },
      { name: "PRIVATE_KEY_PATH", what: "path to the App's private key file" },
      {
        name: "WEBHOOK_SECRET",
        what: "the webhook secret; deliveries with a wrong X-Hub-Signature-256 get 400",
      },
      { name: "WEBHOOK_PATH", what: "webhook path (default /api/github/webhooks)" },
      { name: "PORT / HOST", what: "where the server listens (default 3000 on localhost)" },
      {
        name: "GHE_HOST",
        what: "GitHub Enterprise Server host[:port]; the API is <protocol>://<host>/api/v3",
      },
      { name: "GHE_PROTOCOL", what: "https (default) or http, for GHE_HOST" },
      { name: "WEBHOOK_PROXY_URL", what: "a smee.io channel for development" },
      {
        name: "LOG_LEVEL / LOG_FORMAT",
        what: "pino log level (default info here) and json|pretty",
      },
      { name: "NODE_ENV", what: "production refuses to start the setup flow" },
    ],
  },
  {
    group: "forgechain",
    vars: [
      {
        name: "FORGE_HOME",
        what: "state: journal.db, gate.key, repos/ mirrors, work/ (default ~/.forge)",
      },
      {
        name: "FORGE_GATE_SECRET",
        what: "key for sealed answers, ≥ 32 bytes; else FORGE_HOME/gate.key (0600)",
      },
      {
        name: "FORGE_TRUSTED",
        what: "logins trusted besides write/maintain/admin (comma-separated)",
      },
      {
        name: "FORGE_APP_SLUG",
        what: "the App's slug: only <slug>[bot] comments count as sticky comments",
      },
      { name: "FORGE_BOX", what: "bwrap (default) or worktree" },
      {
        name: "FORGE_OWN_WORK",
        what: "1 declares the work your own (needed for the worktree box)",
      },
      {
        name: "FORGE_AUTO_PROVE",
        what: "1 (default): prove a repository's box when needed; 0: refuse until proved",
      },
      { name: "FORGE_MAX_PARALLEL", what: "runs driven at once (default 2)" },
      {
        name: "FORGE_GIT_URL",
        what: "git host base URL (default GHE_PROTOCOL://GHE_HOST, else https://github.com)",
      },
      { name: "FORGE_STEP_TIMEOUT_MS", what: "one role step's time limit (default 30 min)" },
      {
        name: "DATABASE_URL",
        what: "postgres://… : the journal on PostgreSQL (several replicas may share it)",
      },
      {
        name: "FORGE_LEASE_MS",
        what: "with DATABASE_URL: how long a replica's hold on a run lasts unheard (default 15000)",
      },
      {
        name: "FORGE_RUNNER",
        what: "local (default): steps run in boxes here; actions: each step runs as a job of the repository's forgechain workflow",
      },
      {
        name: "FORGE_ACTIONS_WORKFLOW",
        what: "with actions: the workflow file (default .github/workflows/forgechain-steps.yml)",
      },
      {
        name: "FORGE_ACTIONS_TIMEOUT_MS",
        what: "with actions: how long a job may take to report (default 3600000); then it is sent again once",
      },
      {
        name: "FORGE_ACTIONS_OIDC_ISSUER",
        what: "with actions: who issues the jobs' identity tokens (default GitHub's, or GHE_HOST's)",
      },
    ],
  },
  {
    group: "Model (the claude provider; never given to GitHub, kept out of the journal)",
    vars: [
      {
        name: "ANTHROPIC_API_KEY",
        what: "API key (or ANTHROPIC_AUTH_TOKEN / CLAUDE_CODE_OAUTH_TOKEN, or a claude login)",
      },
      { name: "ANTHROPIC_AUTH_TOKEN", what: "bearer token alternative" },
      { name: "CLAUDE_CODE_OAUTH_TOKEN", what: "subscription token alternative" },
      {
        name: "ANTHROPIC_BASE_URL",
        what: "another endpoint (a proxy, or a scripted model in tests)",
      },
    ],
  },
];

export function serveHelpText(): string {
  const lines = ["", "Environment (also read from ./.env):"];
  for (const g of SERVE_ENV) {
    lines.push("", `  ${g.group}:`);
    for (const v of g.vars) lines.push(`    ${v.name.padEnd(24)} ${v.what}`);
  }
  return lines.join("\n");
}

export interface ServeSettings {
  box: BoxKind;
  ownWork: boolean;
  autoProve: boolean;
  trusted: string[];
  appSlug: string | undefined;
  maxParallel: number;
  gitBase: string;
  stepTimeoutMs: number | undefined;
  /**
   * With several replicas on one database: a run's lease lasts this long unless its driver
   * renews it, so a replica that died hands its runs over this long after its last renewal.
   */
  leaseMs: number;
  /** FORGE_IDLE_TIMEOUT and FORGE_VERIFY_TIMEOUT, as for `forge run` (runner-limits.ts). */
  limits: RunnerLimits;
  /** FORGE_RUNNER=actions: role steps run as jobs of the repository's forgechain workflow. */
  actions?: {
    workflowPath: string;
    reportTimeoutMs: number;
    /** The OIDC issuer whose tokens the jobs report with. */
    issuer: string;
  };
}

export class ServeConfigError extends Error {
  override readonly name = "ServeConfigError";
}

const yes = (v: string | undefined, fallback: boolean) =>
  v === undefined || v === "" ? fallback : /^(1|true|yes|on)$/i.test(v);

export function readServeSettings(env: Record<string, string | undefined>): ServeSettings {
  const box = (env.FORGE_BOX || "bwrap") as BoxKind;
  if (box !== "bwrap" && box !== "worktree") {
    throw new ServeConfigError(`FORGE_BOX=${box}: bwrap or worktree`);
  }
  const int = (name: string, min: number, max: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ServeConfigError(`${name}=${raw}: an integer from ${min} to ${max}`);
    }
    return n;
  };
  const slug = env.FORGE_APP_SLUG?.trim();
  if (slug && !/^[a-z0-9][a-z0-9-]{0,33}$/.test(slug)) {
    throw new ServeConfigError(`FORGE_APP_SLUG=${slug}: not an app slug`);
  }
  let limits: RunnerLimits;
  try {
    limits = runnerLimits(env);
  } catch (error) {
    if (error instanceof RunnerLimitError) throw new ServeConfigError(error.message);
    throw error;
  }
  return {
    box,
    limits,
    ownWork: yes(env.FORGE_OWN_WORK, false),
    autoProve: yes(env.FORGE_AUTO_PROVE, true),
    trusted: parseTrustedList(env.FORGE_TRUSTED),
    appSlug: slug || undefined,
    maxParallel: int("FORGE_MAX_PARALLEL", 1, 16) ?? 2,
    gitBase: gitWebBase(env),
    stepTimeoutMs: int("FORGE_STEP_TIMEOUT_MS", 1000, 24 * 3600_000),
    leaseMs: int("FORGE_LEASE_MS", 1000, 600_000) ?? 15_000,
    ...actionsSettings(env, int),
  };
}

const WORKFLOW_PATH = /^\.github\/workflows\/[A-Za-z0-9_.-]+\.ya?ml$/;

function actionsSettings(
  env: Record<string, string | undefined>,
  int: (name: string, min: number, max: number) => number | undefined,
): Pick<ServeSettings, "actions"> {
  const runner = env.FORGE_RUNNER || "local";
  if (runner !== "local" && runner !== "actions") {
    throw new ServeConfigError(`FORGE_RUNNER=${runner}: local or actions`);
  }
  if (runner === "local") return {};
  const workflowPath = env.FORGE_ACTIONS_WORKFLOW || DEFAULT_WORKFLOW;
  if (!WORKFLOW_PATH.test(workflowPath)) {
    throw new ServeConfigError(
      `FORGE_ACTIONS_WORKFLOW=${workflowPath}: a workflow file, e.g. .github/workflows/forgechain-steps.yml`,
    );
  }
  const issuer =
    env.FORGE_ACTIONS_OIDC_ISSUER ||
    (env.GHE_HOST
      ? ghesActionsIssuer(env.GHE_HOST)
      : "https://token.actions.githubusercontent.com");
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(issuer)) {
    throw new ServeConfigError(`FORGE_ACTIONS_OIDC_ISSUER=${issuer}: an http(s) URL`);
  }
  return {
    actions: {
      workflowPath,
      issuer: issuer.replace(/\/+$/, ""),
      reportTimeoutMs: int("FORGE_ACTIONS_TIMEOUT_MS", 1000, 24 * 3600_000) ?? 3600_000,
    },
  };
}
