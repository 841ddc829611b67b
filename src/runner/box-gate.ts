// R7.2 in front of work: a repository's box must hold a valid proof before a chain runs in
// it. `forge run` proves the box when the proof is missing or stale and stops if the proof
// fails; queued work (the App) is refused instead, naming the fact that changed.
import { join } from "node:path";
import { resolveBoxUser } from "../boxes/box-user.js";
import {
  boxKeyFor,
  isProofValid,
  measureProofFacts,
  type ProofValidity,
  type ProveCheck,
  type ProveReport,
  prove,
  type ValidateControl,
} from "../boxes/index.js";
import type { JournalStore } from "../chain/ports.js";
import { builderAllowPatterns } from "../policy/builder-commands.js";
import {
  controlInvocation,
  controlsToRun,
  type ResolvedConfig,
  setupToRun,
} from "../policy/index.js";
import { claudeProvider, resolveClaudeBinary } from "../providers/claude.js";
import type { Role } from "../roles/role-names.js";
import { effectiveSettings, shellQuote } from "../roles/settings.js";
import { proofNetwork, proveDoors } from "./prove-doors.js";

export interface ProofInputs {
  setup: string[];
  validate: Record<string, ValidateControl>;
}

/** setup:/validate: as the proof runs them (built-in controls as their forge argv). */
/** A role's settings as a run of this repository gets them (the builder's commands too). */
export function runSettings(role: Role, root: string, config: ResolvedConfig | null): unknown {
  return effectiveSettings(role, {
    root,
    ...(config ? { builderCommands: builderAllowPatterns(config) } : {}),
  });
}

export function proofInputs(config: ResolvedConfig | null, root: string): ProofInputs {
  if (!config) return { setup: [], validate: {} };
  const forge = [process.execPath, join(root, "bin", "forge.js")];
  const inDir = (cwd: string, cmd: string) =>
    cwd === "." ? cmd : `cd ${shellQuote(cwd)} && ${cmd}`;
  const setup = setupToRun(config).map((s) => inDir(s.cwd, s.command));
  const validate: Record<string, ValidateControl> = {};
  for (const c of controlsToRun(config)) {
    const inv = controlInvocation(c.run, forge);
    const cmd = inv.kind === "shell" ? inv.command : inv.argv.map(shellQuote).join(" ");
    validate[c.id] = { run: inDir(c.cwd, cmd), advisory: c.advisory };
  }
  return { setup, validate };
}

export interface BoxGateOptions {
  store: JournalStore;
  repo: string;
  box: "bwrap" | "worktree";
  config: ResolvedConfig | null;
  root: string;
  forgeHome: string;
  env: Record<string, string | undefined>;
  ownWork: boolean;
  loginFile?: string;
  onCheck?: (check: ProveCheck) => void;
}

export async function currentValidity(opts: BoxGateOptions): Promise<ProofValidity> {
  const inputs = proofInputs(opts.config, opts.root);
  const facts = await measureProofFacts({
    box: opts.box,
    ...inputs,
    claudeBinary: resolveClaudeBinary(opts.root),
    settingsFor: (role) => runSettings(role, opts.root, opts.config),
    network: proofNetwork(opts.env, opts.box),
  });
  return isProofValid(await opts.store.latestProof(boxKeyFor(opts.box, opts.repo)), facts);
}

export async function proveBox(opts: BoxGateOptions): Promise<ProveReport> {
  const inputs = proofInputs(opts.config, opts.root);
  return prove({
    repo: opts.repo,
    box: opts.box,
    ...inputs,
    settingsFor: (role) => runSettings(role, opts.root, opts.config),
    claudeBinary: resolveClaudeBinary(opts.root),
    agent: claudeProvider({ binary: resolveClaudeBinary(opts.root) }),
    env: opts.env,
    ownWork: opts.ownWork,
    network: { mode: "host" },
    doors: await proveDoors({
      hostEnv: opts.env,
      boxKind: opts.box,
      boxUser: resolveBoxUser(opts.env),
      installRoot: opts.root,
      config: opts.config,
      loginFile: opts.loginFile !== undefined,
    }),
    installRoot: opts.root,
    denyPaths: [opts.forgeHome, join(opts.root, ".env")],
    store: opts.store,
    ...(opts.loginFile ? { loginFile: opts.loginFile } : {}),
    ...(opts.onCheck ? { onCheck: opts.onCheck } : {}),
  });
}

/** Prove when needed; returns null when the box may run, else the reason it may not. */
export async function ensureBoxProof(
  opts: BoxGateOptions,
): Promise<{ proved: boolean; failure: string | null }> {
  const validity = await currentValidity(opts);
  if (validity.valid) return { proved: false, failure: null };
  const report = await proveBox(opts);
  if (report.ok) return { proved: true, failure: null };
  const failed = report.checks.filter((c) => !c.ok && !c.skipped);
  return {
    proved: true,
    failure: `box proof failed: ${failed.map((c) => `${c.name}: ${c.detail}${c.fix ? ` (fix: ${c.fix})` : ""}`).join("; ")}`,
  };
}
