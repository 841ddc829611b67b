// `forge run --repo <path> --task <text|@file>`: the main job without GitHub (R10.5).
// The repository path plays the remote: the runner clones from it and pushes the forge/…
// branch back to it (never its checked-out branch).
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { ownWorkDeclared } from "../../boxes/create-box.js";
import type { BoxKind } from "../../boxes/types.js";
import { installRoot } from "../../install-root.js";
import { checkCredentials } from "../../providers/credentials.js";
import { CHAINS, type ChainKind, isChainKind } from "../../roles/role-names.js";
import { forgeHome } from "../../store/forge-home.js";
import { executeLocalRun } from "../local/local-run.js";
import { UsageError } from "../usage-error.js";

interface RunFlags {
  repo: string;
  task?: string;
  title?: string;
  chain: string;
  base?: string;
  head?: string;
  box: string;
  provider: string;
  json?: boolean;
}

const TASK_LIMIT = 64 * 1024;

export function registerRun(program: Command): void {
  program
    .command("run")
    .description(
      "run a chain locally on a git repository: clone it, run architect → builder → reviewer → " +
        "security in bwrap boxes, push the forge/… branch back; exit 0 only when the chain PASSed",
    )
    .requiredOption("--repo <path>", "the repository (it plays the remote)")
    .option("--task <text|@file>", "what to do (change chain); @file reads it from a file")
    .option("--title <text>", "a short title (default: the task's first line)")
    .option("--chain <chain>", "change | review", "change")
    .option("--base <ref>", "base ref (default: the repository's current branch)")
    .option("--head <ref>", "review chain: the head to review (default: HEAD of --repo)")
    .option("--box <kind>", "bwrap | worktree (worktree needs FORGE_OWN_WORK=1)", "bwrap")
    .option("--provider <name>", "claude | codex", "claude")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nEnvironment: ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN / CLAUDE_CODE_OAUTH_TOKEN (or a `claude` " +
        "login), ANTHROPIC_BASE_URL, FORGE_HOME (state; default ~/.forge), FORGE_OWN_WORK, " +
        "FORGE_IDLE_TIMEOUT (seconds an agent may show no progress; default 300, 0 = no limit), " +
        "FORGE_VERIFY_TIMEOUT (seconds scripts/verify.sh may take; default 600).",
    )
    .action(async (flags: RunFlags) => {
      const repo = resolve(flags.repo);
      if (!existsSync(repo) || !statSync(repo).isDirectory()) {
        throw new UsageError(`--repo ${flags.repo}: not a directory`);
      }
      if (!isChainKind(flags.chain))
        throw new UsageError(`--chain ${flags.chain}: change or review`);
      const chain: ChainKind = flags.chain;
      if (flags.box !== "bwrap" && flags.box !== "worktree") {
        throw new UsageError(`--box ${flags.box}: bwrap or worktree (container needs an engine)`);
      }
      if (flags.provider !== "claude" && flags.provider !== "codex") {
        throw new UsageError(`--provider ${flags.provider}: claude or codex`);
      }
      const body = readTask(flags.task, chain);
      const creds = checkCredentials(flags.provider, process.env);
      if (!creds.ok) {
        process.stderr.write(`forge run: ${creds.message}\n`);
        process.exitCode = 2;
        return;
      }
      const result = await executeLocalRun({
        root: installRoot(),
        forgeHome: forgeHome(process.env),
        env: process.env,
        repo,
        chain,
        task: { title: flags.title ?? firstLine(body), body },
        ...(flags.base ? { base: flags.base } : {}),
        ...(flags.head ? { head: flags.head } : {}),
        box: flags.box as BoxKind,
        ownWork: ownWorkDeclared(process.env),
        provider: flags.provider,
        ...(creds.loginFile ? { loginFile: creds.loginFile } : {}),
        out: process.stdout,
        json: flags.json ?? false,
        roles: CHAINS[chain],
      });
      process.exitCode = result.exitCode;
    });
}

function readTask(task: string | undefined, chain: ChainKind): string {
  if (task === undefined) {
    if (chain === "review") return "Review this change.";
    throw new UsageError("--task is required for the change chain");
  }
  let text = task;
  if (task.startsWith("@")) {
    const file = task.slice(1);
    if (!existsSync(file)) throw new UsageError(`--task ${task}: no such file`);
    text = readFileSync(file, "utf8");
  }
  if (text.trim() === "") throw new UsageError("--task is empty");
  if (Buffer.byteLength(text) > TASK_LIMIT) {
    throw new UsageError(`--task is over ${TASK_LIMIT} bytes; shorten it`);
  }
  return text;
}

function firstLine(text: string): string {
  return (text.trim().split("\n")[0] ?? "task").slice(0, 120);
}
