// Getting one step's agent ready and started: its fresh HOME, frozen settings, role
// definition, skills, scrubbed environment, invocation and box (R2.5, R7.1, R8.5). Split in
// two so the runner can start an agent whose prompt is not known yet (a warm start, see
// warm-agents.ts): `prepareAgent` needs only the step and its workspace, `launchAgent` starts
// the box, and the prompt follows on stdin.
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type BoxUser, handToBox } from "../boxes/box-user.js";
import type { Box, BoxKind, ExtraBind, NetworkSeam } from "../boxes/types.js";
import type { RunRecord } from "../chain/types.js";
import {
  type Profile,
  profileToProviderOptions,
  type ResolvedConfig,
  tierModels,
} from "../policy/index.js";
import type { Invocation, Provider } from "../providers/types.js";
import { loadRoleDefinition } from "../roles/role-file.js";
import { READ_ONLY_ROLES, type Role } from "../roles/role-names.js";
import { effectiveSettings, SEARCH_TOOLS_ARGS } from "../roles/settings.js";
import { materialiseSkills } from "../roles/skills.js";
import { type AgentEgress, agentEgress } from "./agent-egress.js";
import { buildAgentEnv } from "./agent-env.js";
import { createAgentHome } from "./agent-home.js";
import { type AgentHandle, startAgentProcess } from "./agent-process.js";
import type { Door } from "./egress-door.js";
import { commandWithGuardServer, openGuardSocket } from "./guard-socket.js";
import type { RunEgress } from "./run-egress.js";
import { frozenRole } from "./snapshot-content.js";
import type { Workspace } from "./workspace.js";

export interface AgentLaunchDeps {
  installRoot: string;
  provider: Provider;
  boxKind: BoxKind;
  hostEnv: Record<string, string | undefined>;
  profiles: Record<Role, Profile>;
  config: ResolvedConfig | null;
  handbookDir?: string;
  claudeCredentialsFile?: string;
  guardServer?: boolean;
  /** FORGE_VERIFY_TIMEOUT, passed on to the builder's Stop hook. */
  verifyTimeoutMs?: number;
  /** Who the boxes run as: HOMEs and the guard socket are handed to this user. */
  boxUser?: BoxUser;
  boxFor(
    role: Role,
    workspace: string,
    home: string,
    extraReadOnly: string[],
    binds?: ExtraBind[],
    network?: NetworkSeam,
  ): Box;
  /** The runner's egress (run-egress.ts); absent: the box shares the host network. */
  egress?: Pick<RunEgress, "controlled" | "door">;
}

export interface StepTarget {
  run: RunRecord;
  role: Role;
  index: number;
  attempt: number;
  ws: Workspace;
  stepDir: string;
  /** Where the repository's `.claude/agents/<role>.md` fallback is read (run-git.ts). */
  roleRepoDir?: string;
}

export interface PreparedAgent {
  target: StepTarget;
  readOnly: boolean;
  home: string;
  settingsFile: string;
  profileFile: string;
  ledgerFile: string;
  /** The role's prompt text and where it came from (frozen snapshot, handbook, repo, default). */
  definition: { prompt: string; origin: string };
  skills: { installed: string[]; missing: string[]; refused: unknown[] };
  box: Box;
  providerOpts: ReturnType<typeof profileToProviderOptions>;
  model: string | undefined;
  schemaJson: string;
  env: Record<string, string>;
  /** What the agent's box may reach and where its model credential is (agent-egress.ts). */
  egress: AgentEgress;
  /**
   * Whether the agent reads the tree when it starts: Claude Code puts a git status snapshot in
   * its context unless the settings say `includeGitInstructions: false` (measured, see
   * docs/decisions.md).
   * Such an agent may be warm-started only on the tree its step will get.
   */
  readsTreeAtStart: boolean;
}

export async function prepareAgent(deps: AgentLaunchDeps, t: StepTarget): Promise<PreparedAgent> {
  const { run, role, ws, stepDir } = t;
  const home = join(stepDir, "home");
  await mkdir(stepDir, { recursive: true });
  await createAgentHome({
    home,
    ...(deps.boxUser ? { user: deps.boxUser } : {}),
    ...(deps.claudeCredentialsFile ? { claudeCredentials: deps.claudeCredentialsFile } : {}),
  });
  const frozen = frozenRole(run.snapshot, role);
  // R8.5: the settings frozen when the run started, not whatever the files say now.
  const settingsFile = join(stepDir, "settings.json");
  const settings = frozen?.settings ?? effectiveSettings(role, { root: deps.installRoot });
  await writeFile(settingsFile, JSON.stringify(settings, null, 2));
  // Bound read-only into the box, whose user must read it whatever the runner's umask.
  await chmod(settingsFile, 0o644);
  const def = frozen ?? {
    ...(await loadRoleDefinition({
      role,
      repoDir: t.roleRepoDir ?? ws.dir,
      defaultsDir: join(deps.installRoot, "roles"),
      ...(deps.handbookDir ? { handbookDir: deps.handbookDir } : {}),
    })),
  };
  const skills = await materialiseSkills({
    names: def.skills,
    catalogDirs: [
      ...(deps.handbookDir ? [join(deps.handbookDir, "skills")] : []),
      join(deps.installRoot, "skills"),
    ],
    home,
  });
  const profile = deps.profiles[role];
  const providerOpts = profileToProviderOptions(
    profile,
    deps.config ? tierModels(deps.config) : {},
    deps.config
      ? {
          maxTurns: deps.config.budgets.maxTurns?.value ?? null,
          maxBudgetUsd: deps.config.budgets.maxBudgetUsd?.value ?? null,
        }
      : undefined,
  );
  const schemaJson = frozen
    ? JSON.stringify(frozen.schema)
    : await readFile(join(deps.installRoot, "schemas", `${role}.json`), "utf8");
  // R7.3: the role gate runs in the guard hook from this profile (read-only in the box) and
  // appends violations to a hash-chained ledger; the runner ends the step on the first one.
  const profileFile = join(stepDir, "profile.json");
  await writeFile(profileFile, JSON.stringify(profile));
  await chmod(profileFile, 0o644);
  const ledgerFile = join(home, ".forge", "ledger.jsonl");
  await mkdir(dirname(ledgerFile), { recursive: true });
  // The skills and the ledger's directory came after the HOME was made: the box's user owns all.
  await handToBox(home, deps.boxUser);
  const egress = agentEgress({
    provider: deps.provider.name,
    credentials: deps.provider.credentialEnv(deps.hostEnv),
    loginFile: deps.claudeCredentialsFile !== undefined,
    controlled: deps.egress?.controlled ?? false,
  });
  const env = buildAgentEnv({
    host: deps.hostEnv,
    home,
    providerCredentials: egress.boxEnv,
    extra: {
      FORGE_BASE_REF: ws.baseSha,
      // The builder's Stop hook runs scripts/verify.sh with the deployment's limit.
      ...(deps.verifyTimeoutMs !== undefined
        ? { FORGE_VERIFY_TIMEOUT: String(deps.verifyTimeoutMs / 1000) }
        : {}),
      FORGE_ROLE: role,
      FORGE_RUN_ID: run.id,
      FORGE_ROLE_PROFILE: profileFile,
      FORGE_ROLE_LEDGER: ledgerFile,
      CLAUDE_PROJECT_DIR: ws.dir,
    },
  });
  return {
    target: t,
    readOnly: READ_ONLY_ROLES.has(role),
    home,
    settingsFile,
    profileFile,
    ledgerFile,
    definition: { prompt: def.prompt, origin: def.origin },
    skills: { installed: skills.installed, missing: skills.missing, refused: skills.refused },
    box: deps.boxFor(
      role,
      ws.dir,
      home,
      [settingsFile, profileFile, ...(ws.readOnly ?? [])],
      ws.binds,
    ),
    providerOpts,
    model: def.model ?? providerOpts.model,
    schemaJson,
    env,
    egress,
    readsTreeAtStart:
      (settings as { includeGitInstructions?: unknown }).includeGitInstructions !== false,
  };
}

/** The provider's command line; `prompt` may be left out when the provider reads stdin. */
export function invocationFor(deps: AgentLaunchDeps, p: PreparedAgent, prompt?: string) {
  return deps.provider.buildInvocation({
    ...(prompt !== undefined ? { prompt } : {}),
    role: p.target.role,
    readOnly: p.readOnly,
    settingsFile: p.settingsFile,
    schemaJson: p.schemaJson,
    ...(p.model ? { model: p.model } : {}),
    ...(p.providerOpts.maxBudgetUsd !== undefined
      ? { maxBudgetUsd: p.providerOpts.maxBudgetUsd }
      : {}),
    extraArgs: [...SEARCH_TOOLS_ARGS],
    cwd: p.target.ws.dir,
  });
}

export interface LaunchedAgent {
  handle: AgentHandle;
  invocation: Invocation;
  /**
   * Removes the guard socket's directory and closes the box's egress door: call once the agent
   * has ended. Resolves to the door's refusals, as journal events.
   */
  cleanup(): Promise<Array<{ type: string; data: Record<string, unknown> }>>;
}

/** Starts the agent in its box; with a stdin prompt it waits for `handle.send`. */
export async function launchAgent(
  deps: AgentLaunchDeps,
  p: PreparedAgent,
  invocation: Invocation,
): Promise<LaunchedAgent> {
  const { role, ws, index } = p.target;
  // The box's door: the model through the gateway, nothing else (agent-egress.ts).
  const door: Door | null = deps.egress
    ? await deps.egress.door({
        phase: "agent",
        role,
        index,
        rules: p.egress.rules,
        ...(p.egress.gateway ? { gateway: p.egress.gateway } : {}),
      })
    : null;
  // In a bwrap box the guard runs as a server beside the agent (guard-socket.ts): the hooks
  // only ask it. Other boxes have no PID namespace to end it with the agent: in-process.
  const guardSock =
    deps.boxKind === "bwrap" && deps.guardServer !== false
      ? await openGuardSocket("/tmp", deps.boxUser).catch(async (error: unknown) => {
          await door?.close();
          throw error;
        })
      : null;
  const made = deps.boxFor(
    role,
    ws.dir,
    p.home,
    [p.settingsFile, p.profileFile, ...(guardSock ? [guardSock.dir] : []), ...(ws.readOnly ?? [])],
    ws.binds,
    ...(door ? [door.network] : []),
  );
  const agentBox = door ? door.wrapBox(made) : made;
  const agentCmd = guardSock
    ? commandWithGuardServer(invocation.command, invocation.args, {
        node: process.execPath,
        installRoot: deps.installRoot,
      })
    : { command: invocation.command, args: invocation.args };
  const agentEnv = guardSock ? { ...p.env, FORGE_GUARD_SOCKET: guardSock.path } : p.env;
  const wrapped = agentBox.wrap({ ...agentCmd, cwd: ws.dir, env: agentEnv });
  let sockOpen = guardSock !== null;
  const closeSock = () => {
    if (sockOpen) guardSock?.close();
    sockOpen = false;
  };
  const handle = startAgentProcess(wrapped, {
    stdin: invocation.stdinPrompt !== undefined,
    ...(guardSock ? { inheritFds: [guardSock.fd], onSpawn: closeSock } : {}),
  });
  return {
    handle,
    invocation,
    async cleanup() {
      closeSock();
      guardSock?.remove();
      return door ? await door.close() : [];
    },
  };
}

/** Kills a launched agent's box, waits for it to end, then removes its guard socket. */
export async function stopLaunched(launched: LaunchedAgent): Promise<void> {
  launched.handle.kill();
  // The box is gone once its process closes; only then remove the guard socket's directory.
  await launched.handle.wait({ timeoutMs: 10_000 });
  await launched.cleanup();
}
