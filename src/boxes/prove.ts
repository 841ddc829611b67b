// `forge box prove` (R7.2): turn the box configuration into a recorded fact. A fixed sequence;
// a failed check skips every check that depends on it, so each cause is reported once, with
// its fix. The proof holds while its facts (proof-facts.ts) are unchanged.

import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BoxProof, JournalStore } from "../chain/ports.js";
import { ROLES, type Role } from "../roles/role-names.js";
import { type BoxUser, handToBox, resolveBoxUser } from "./box-user.js";
import { resolveNetwork } from "./network.js";
import { settingsDigest } from "./proof-current.js";
import { proofFacts, type ValidateControl } from "./proof-facts.js";
import type { ProveAgent } from "./prove-agent.js";
import { boxStartsCheck, imageContractCheck, toolboxCheck } from "./prove-box.js";
import {
  behindDoor,
  enforcementThrough,
  type ProveDoors,
  type ProvePhase,
  proveNetwork,
  uncontrolled,
} from "./prove-egress.js";
import { roleEnforcementCheck, settingsByRole } from "./prove-enforcement.js";
import { type BoxContext, caStore, harnessCredentials, harnessVersion } from "./prove-harness.js";
import { installRootOf, outsideAllowlistCheck, rootOnlyFileCheck } from "./prove-host.js";
import { cloneMain, setupCheck, validateCheck } from "./prove-project.js";
import { createCheckSequence } from "./prove-sequence.js";
import { commandsOf, toolchainCheck } from "./prove-toolchain.js";
import type { ProveCheck } from "./prove-types.js";
import { createRunBox } from "./run-box.js";
import { detectToolbox, toolboxFact } from "./toolbox.js";
import type { Box, BoxDescription, NetworkSeam } from "./types.js";

export interface ProveOptions {
  /** The repository (local path) whose main branch is cloned clean. */
  repo: string;
  box: "bwrap" | "worktree";
  setup: string[];
  validate: Record<string, ValidateControl>;
  /** Effective settings JSON per role (roles/settings.ts effectiveSettings). */
  settingsFor: (role: Role) => unknown;
  claudeBinary: string;
  /** The agent CLI at claudeBinary, as its provider drives it (the caller picks the provider). */
  agent: ProveAgent;
  /** Host environment: credentials are taken from it (names reported, never values). */
  env: Record<string, string | undefined>;
  store?: Pick<JournalStore, "saveProof" | "latestProof">;
  /** FORGE_OWN_WORK declared (worktree box). */
  ownWork?: boolean;
  /** Without `doors`: the network of every box (default: the host's, and the report says so). */
  network?: NetworkSeam;
  /**
   * The doors runs use (R4.6): setup, the controls and the agents each behind their own, the
   * egress checks run, and the enforcement check's CLI reaches its scripted model through one.
   */
  doors?: ProveDoors;
  /**
   * @deprecated Ignored: prove builds its boxes as runs do (createRunBox), which adds
   * forgechain's toolbox and node by itself — never the install root as a whole.
   */
  readOnlyPaths?: string[];
  /** forgechain's install root (default: the installation holding the claude binary). */
  installRoot?: string;
  /** Who the boxes run as (default: as runs would, resolveBoxUser(env)). */
  user?: BoxUser;
  /** Host paths the box must not see (FORGE_HOME with gate.key, the deployment's .env). */
  denyPaths?: string[];
  roles?: readonly Role[];
  /** Parent for the temporary box directories (default os.tmpdir()). */
  workDir?: string;
  /** The claude login file to copy into the box's HOME when no credential variable is set. */
  loginFile?: string;
  node?: string;
  commandTimeoutMs?: number;
  onCheck?: (check: ProveCheck) => void;
  clock?: () => Date;
}

export interface ProveReport {
  ok: boolean;
  boxKey: string;
  checks: ProveCheck[];
  facts: Record<string, string>;
  box: BoxDescription | null;
  proof: BoxProof;
}

export function boxKeyFor(kind: string, repo: string): string {
  return `${kind}:${existsSync(repo) ? realpathSync(repo) : repo}`;
}

export async function prove(opts: ProveOptions): Promise<ProveReport> {
  const roles = opts.roles ?? ROLES;
  const node = opts.node ?? process.execPath;
  const timeout = opts.commandTimeoutMs ?? 600_000;
  const { checks, add, step } = createCheckSequence((c) => opts.onCheck?.(c));

  const base = mkdtempSync(join(opts.workDir ?? tmpdir(), "forge-prove-"));
  const workspace = join(base, "workspace");
  const home = join(base, "home");
  const settingsDir = join(home, ".forge-prove");
  mkdirSync(settingsDir, { recursive: true });
  mkdirSync(workspace);
  const toolbox = detectToolbox();
  const doors = opts.doors?.mode === "proxy" && opts.box === "bwrap" ? opts.doors : undefined;
  // Behind doors, the plain checks need no network at all.
  const seam: NetworkSeam = doors ? { mode: "none" } : (opts.network ?? { mode: "host" });
  const networkMode = doors ? "proxy" : seam.mode;
  const installRoot = opts.installRoot ?? installRootOf(opts.claudeBinary);
  const user = opts.user ?? resolveBoxUser(opts.env);
  /** The boxes prove runs in: built exactly as run boxes are. */
  const runBox = (extraReadOnly: string[] = [], network: NetworkSeam = seam): Box =>
    createRunBox(opts.box, {
      workspace,
      home,
      allowNetwork: network.mode === "host",
      network,
      ownWork: opts.ownWork ?? false,
      readOnlyPaths: [settingsDir, ...extraReadOnly],
      denySubpaths: opts.denyPaths ?? [],
      user,
      installRoot,
      env: opts.env,
    });
  /** A check in a box behind a fresh door of `phase` (without doors: the plain box). */
  const inPhase = async (phase: ProvePhase, fn: (c: BoxContext) => Promise<ProveCheck>) => {
    if (!doors) return fn(ctx);
    const made = await behindDoor(
      doors,
      phase,
      (network) => runBox([], network),
      (box) => fn({ ...ctx, box, env: { ...ctx.env, ...doors.phaseEnv(phase) } }),
    );
    return made.value;
  };
  const settingsJson = settingsByRole(roles, (r) => opts.settingsFor(r));
  let harness = "unknown";
  let description: BoxDescription | null = null;
  const ctx = {} as BoxContext;

  try {
    add({
      name: "image",
      ok: true,
      detail: `n/a: a ${opts.box} box runs no image (the host is the toolbox)`,
      fix: "",
    });
    await step("toolbox", [], () => toolboxCheck(opts.box, toolbox));
    await step("box starts", ["toolbox"], () =>
      boxStartsCheck({
        kind: opts.box,
        start: async () => {
          const box = runBox();
          await handToBox(workspace, user);
          await handToBox(home, user);
          return Object.assign(ctx, {
            box,
            workspace,
            home,
            env: { PATH: opts.env.PATH ?? "/usr/bin:/bin", HOME: home },
          });
        },
        network: () =>
          networkMode === "proxy"
            ? "the egress proxy only"
            : resolveNetwork({ allowNetwork: false, network: seam }).mode,
        described: (d) => {
          description = d;
        },
      }),
    );
    await step("host root-only file unreadable", ["box starts"], () =>
      rootOnlyFileCheck({ kind: opts.box, base, ctx, probeBox: runBox }),
    );
    await step("host paths outside the allowlist invisible", ["box starts"], () =>
      outsideAllowlistCheck({ kind: opts.box, base, ctx, installRoot, env: opts.env }),
    );
    await step("image contract", ["box starts"], () => imageContractCheck(ctx));
    // Every program the project's commands start: the same one in the box as on the host.
    for (const command of commandsOf([
      ...opts.setup,
      ...Object.values(opts.validate).map((v) => v.run),
    ])) {
      await step(`toolchain: ${command}`, ["image contract"], () =>
        toolchainCheck(ctx, command, opts.env.PATH ?? "/usr/bin:/bin"),
      );
    }
    await step("clean clone of main", ["image contract"], async () => {
      const check = cloneMain(opts.repo, workspace);
      await handToBox(workspace, user);
      return check;
    });
    for (const [i, cmd] of opts.setup.entries()) {
      const needs = ["clean clone of main", ...(i > 0 ? [`setup: ${opts.setup[i - 1]}`] : [])];
      await step(`setup: ${cmd}`, needs, () =>
        inPhase("setup", (phaseCtx) => setupCheck(phaseCtx, cmd, timeout)),
      );
    }
    const afterSetup = opts.setup.length
      ? [`setup: ${opts.setup[opts.setup.length - 1]}`]
      : ["clean clone of main"];
    for (const [name, control] of Object.entries(opts.validate)) {
      await step(`validate: ${name}`, afterSetup, () =>
        inPhase("controls", (phaseCtx) => validateCheck(phaseCtx, name, control, timeout)),
      );
    }
    if (Object.keys(opts.validate).length === 0) {
      add({
        name: "validate",
        ok: true,
        detail: "no validate: controls given (the config loader checks the quality floor)",
        fix: "",
      });
    }
    await step("harness version", ["box starts"], async () => {
      const c = await harnessVersion(ctx, opts.claudeBinary);
      if (c.version) harness = `claude ${c.version}`;
      const { version: _v, ...check } = c;
      return check;
    });
    const credentials = opts.agent.credentialEnv(opts.env);
    await step("harness credentials", ["harness version"], async () => {
      const login = opts.loginFile ?? join(homedir(), ".claude", ".credentials.json");
      let inBox: string | null = null;
      if (existsSync(login)) {
        inBox = join(home, ".claude", ".credentials.json");
        mkdirSync(dirname(inBox), { recursive: true });
        copyFileSync(login, inBox);
        chmodSync(inBox, 0o600);
        await handToBox(dirname(inBox), user);
      }
      return harnessCredentials(ctx, credentials, inBox);
    });
    await step("CA store", ["box starts"], () => caStore(ctx, opts.env.NODE_EXTRA_CA_CERTS));
    await proveNetwork({
      ctx,
      node,
      endpoint: credentials.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com",
      make: (network) => runBox([], network),
      doors,
      uncontrolled: () => uncontrolled(opts, seam),
      seamMode: seam.mode,
      step,
    });
    for (const role of roles) {
      await step(`enforcement: ${role}`, ["harness version", "clean clone of main"], () =>
        roleEnforcementCheck(settingsJson[role], settingsDir, {
          role,
          box: ctx.box,
          ...(doors
            ? { through: enforcementThrough(doors, (network) => runBox([], network)) }
            : {}),
          workspace,
          home,
          agent: opts.agent,
          path: ctx.env.PATH ?? "/usr/bin:/bin",
          user,
        }),
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }

  const facts = proofFacts({
    boxKind: opts.box,
    image: "none",
    toolbox: toolboxFact(toolbox),
    harness,
    setup: opts.setup,
    validate: opts.validate,
    settings: settingsDigest(roles, opts.settingsFor),
    network: networkMode,
  });
  const boxKey = boxKeyFor(opts.box, opts.repo);
  const ok = checks.every((c) => c.ok);
  const proof: BoxProof = {
    boxKey,
    facts,
    ok,
    checks: checks.map(({ name, ok, detail, fix }) => ({ name, ok, detail, fix })),
    provedAt: (opts.clock?.() ?? new Date()).toISOString(),
  };
  await opts.store?.saveProof(proof);
  return { ok, boxKey, checks, facts, box: description, proof };
}
