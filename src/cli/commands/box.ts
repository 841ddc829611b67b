// `forge box prove` (R7.2). setup:/validate: are the repository's own, resolved from
// .github/forge.yml on its default branch with the stack presets — exactly what a run runs —
// unless flags name them; the proof is stored in the journal under FORGE_HOME.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { resolveBoxUser } from "../../boxes/box-user.js";
import { ownWorkDeclared } from "../../boxes/create-box.js";
import type { ValidateControl } from "../../boxes/proof-facts.js";
import { type ProveReport, prove } from "../../boxes/prove.js";
import type { ProveCheck } from "../../boxes/prove-types.js";
import { installRoot } from "../../install-root.js";
import { ConfigError, formatIssue, loadProfiles, type ResolvedConfig } from "../../policy/index.js";
import { loadRepoPolicy } from "../../policy/repo-policy.js";
import { claudeProvider, resolveClaudeBinary } from "../../providers/claude.js";
import { type ProofInputs, proofInputs, runSettings } from "../../runner/box-gate.js";
import { gitRunnerIn } from "../../runner/git-runner.js";
import { proveDoors } from "../../runner/prove-doors.js";
import { openJournal } from "../../store/sqlite-journal.js";
import { UsageError } from "../usage-error.js";

interface ProveFlags {
  repo?: string;
  box: string;
  setup: string[];
  validate: string[];
  advisory: string[];
  network?: string;
  json?: boolean;
  store: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerBox(program: Command): void {
  const box = program
    .command("box")
    .description("sandbox boxes: prove that a box works and enforces");
  box
    .command("prove")
    .description(
      "run the fixed proof sequence (toolbox, box contract, setup + validate on a clean clone of " +
        "main, harness, enforcement per role) and record the proof; exit 1 when it fails",
    )
    .option("--repo <path>", "the repository (default: the current directory)")
    .option("--box <kind>", "bwrap | worktree", "bwrap")
    .option(
      "--setup <command>",
      "a setup: command (repeatable, in order; default: the repository's own)",
      collect,
      [],
    )
    .option(
      "--validate <name=command>",
      "a validate: control (repeatable; default: the repository's own)",
      collect,
      [],
    )
    .option("--advisory <name>", "mark a validate: control advisory (repeatable)", collect, [])
    .option(
      "--network <mode>",
      "prove other boxes than runs get: host (the host network) | none (no network); default: " +
        "the boxes runs get (the egress proxy, unless the deployment set FORGE_EGRESS=host)",
    )
    .option("--no-store", "do not record the proof in the journal")
    .option("--json", "print the report as JSON")
    .action(async (flags: ProveFlags) => {
      const repo = resolve(flags.repo ?? process.cwd());
      if (!isDir(repo)) throw new UsageError(`--repo ${repo}: not a directory`);
      if (flags.box !== "bwrap" && flags.box !== "worktree") {
        throw new UsageError(
          `--box ${flags.box}: box prove runs bwrap or worktree here (container needs an engine)`,
        );
      }
      if (flags.network !== undefined && flags.network !== "host" && flags.network !== "none")
        throw new UsageError(`--network ${flags.network}: host or none`);
      const root = installRoot();
      const inputs =
        flags.setup.length > 0 || flags.validate.length > 0
          ? {
              setup: flags.setup,
              validate: parseValidate(flags.validate, flags.advisory),
              config: null,
            }
          : await repoInputs(repo, root);
      const forgeHome = process.env.FORGE_HOME ?? join(homedir(), ".forge");
      const journalFile = join(forgeHome, "journal.db");
      let store: ReturnType<typeof openJournal> | undefined;
      if (flags.store) {
        mkdirSync(dirname(journalFile), { recursive: true });
        store = openJournal(journalFile);
      }
      try {
        const report = await prove({
          repo,
          box: flags.box,
          setup: inputs.setup,
          validate: inputs.validate,
          settingsFor: (role) => runSettings(role, root, inputs.config),
          claudeBinary: resolveClaudeBinary(root),
          agent: claudeProvider({ binary: resolveClaudeBinary(root) }),
          env: process.env,
          ownWork: ownWorkDeclared(process.env),
          network: { mode: (flags.network as "host" | "none" | undefined) ?? "host" },
          ...(flags.network === undefined
            ? {
                doors: await proveDoors({
                  hostEnv: process.env,
                  boxKind: flags.box,
                  boxUser: resolveBoxUser(process.env),
                  installRoot: root,
                  config: inputs.config,
                  loginFile: existsSync(join(homedir(), ".claude", ".credentials.json")),
                }),
              }
            : {}),
          // The boxes runs use: the toolbox from this install root (never the root whole).
          installRoot: root,
          // R6.4: gate.key and the journal never enter a box; nor the deployment's own .env.
          denyPaths: [forgeHome, join(root, ".env")],
          store,
          onCheck: flags.json ? undefined : (c) => process.stdout.write(`${line(c)}\n`),
        });
        if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else process.stdout.write(summary(report, store ? journalFile : null));
        if (!report.ok) process.exitCode = 1;
      } finally {
        await store?.close();
      }
    });
}

/** What a run of this repository would set up and validate (box-gate.ts: the same inputs). */
async function repoInputs(
  repo: string,
  root: string,
): Promise<ProofInputs & { config: ResolvedConfig }> {
  try {
    const policy = await loadRepoPolicy(repo, {
      git: gitRunnerIn(repo),
      profiles: loadProfiles(join(root, "profiles")),
    });
    return { ...proofInputs(policy.config, root), config: policy.config };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new UsageError(
      `the repository's .github/forge.yml is refused: ${error.issues.map(formatIssue).join("; ")} ` +
        "(forge config check shows every issue; --setup/--validate prove other commands)",
    );
  }
}

export function parseValidate(
  specs: string[],
  advisory: string[],
): Record<string, ValidateControl> {
  const out: Record<string, ValidateControl> = {};
  for (const spec of specs) {
    const i = spec.indexOf("=");
    const name = spec.slice(0, i).trim();
    if (i <= 0 || !/^[a-z0-9][a-z0-9_-]*$/.test(name) || spec.slice(i + 1).trim() === "") {
      throw new UsageError(`--validate ${spec}: expected name=command (name: a-z0-9_-)`);
    }
    out[name] = { run: spec.slice(i + 1), advisory: false };
  }
  for (const name of advisory) {
    const control = out[name];
    if (!control) throw new UsageError(`--advisory ${name}: no --validate ${name}=… given`);
    control.advisory = true;
  }
  return out;
}

function line(c: ProveCheck): string {
  const mark = c.ok ? "ok  " : c.skipped ? "skip" : "FAIL";
  return `${mark} ${c.name}: ${c.detail}${!c.ok && c.fix ? `\n     fix: ${c.fix}` : ""}`;
}

function summary(report: ProveReport, journal: string | null): string {
  const notes = report.box?.notes ?? [];
  return [
    "",
    ...notes.map((n) => `note: ${n}`),
    report.ok ? `box proved: ${report.boxKey}` : `box NOT proved: ${report.boxKey}`,
    journal ? `proof recorded in ${journal}` : "proof not recorded (--no-store)",
    "",
  ].join("\n");
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
