// `forge resume <run>`: continues a run from the journal — one left `running` by a process that
// is gone (the step it ran is re-attempted), or a paused one whose question is answered. A run
// another live process still drives is left alone: two drivers would run its steps twice.
import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import { ownWorkDeclared } from "../../boxes/create-box.js";
import type { BoxKind } from "../../boxes/types.js";
import type { RunRecord } from "../../chain/types.js";
import { installRoot } from "../../install-root.js";
import { checkCredentials } from "../../providers/credentials.js";
import type { ProviderName } from "../../providers/types.js";
import { CHAINS } from "../../roles/role-names.js";
import { forgeHome } from "../../store/forge-home.js";
import { driveLocal } from "../local/local-drive.js";
import { prepareLocal } from "../local/local-run.js";
import { describeDriver, runDriver } from "../local/orphans.js";
import { progressView } from "../local/progress.js";
import { findRun } from "../local/run-lookup.js";
import { openLocalStack, openStore } from "../local/stack.js";
import { UsageError } from "../usage-error.js";

export function registerResume(program: Command): void {
  program
    .command("resume")
    .description(
      "continue a run from the journal: one left running by a process that is gone, or a paused one whose question is answered",
    )
    .argument("<run-id>", "a run id (or a unique prefix)")
    .option("--box <kind>", "bwrap | worktree (default: the kind the run ran in)")
    .option("--json", "print the result as JSON")
    .action(async (runId: string, flags: { box?: string; json?: boolean }) => {
      const home = forgeHome(process.env);
      const store = openStore(home, process.env);
      let run: RunRecord;
      let box: BoxKind;
      try {
        run = await findRun(store, runId);
        const refusal = await whyNot(store, run);
        if (refusal) {
          process.stderr.write(`forge resume: ${refusal}\n`);
          process.exitCode = 1;
          return;
        }
        const recorded = (await store.latestEvent(run.id, "run.driver"))?.data.box;
        box = (flags.box ?? (recorded === "worktree" ? "worktree" : "bwrap")) as BoxKind;
        if (box !== "bwrap" && box !== "worktree")
          throw new UsageError(`--box ${box}: bwrap or worktree`);
      } finally {
        await store.close();
      }
      const provider = providerOf(run);
      const creds = checkCredentials(provider, process.env);
      if (!creds.ok) {
        process.stderr.write(`forge resume: ${creds.message}\n`);
        process.exitCode = 2;
        return;
      }
      const base = {
        root: installRoot(),
        forgeHome: home,
        env: process.env,
        repo: run.repo.remote,
        box,
        ownWork: ownWorkDeclared(process.env),
        provider,
        ...(creds.loginFile ? { loginFile: creds.loginFile } : {}),
        out: process.stdout,
        json: flags.json ?? false,
      };
      const prepared = await prepareLocal(base, "forge resume");
      if ("result" in prepared) {
        process.exitCode = prepared.result.exitCode;
        return;
      }
      const view = progressView(
        base.json ? { write: () => true } : process.stdout,
        CHAINS[run.chain],
      );
      const stack = openLocalStack(
        { ...base, policy: prepared.policy, observer: view, command: "forge resume" },
        prepared.store,
      );
      try {
        view.seed(await stack.store.getSteps(run.id));
        if (!base.json) view.note(`resuming run ${run.id} (${run.chain} chain, was ${run.state})`);
        if (run.state === "paused") await stack.engine.resume(run.id, { actor: "forge resume" });
        const result = await driveLocal({
          stack,
          view,
          runId: run.id,
          out: process.stdout,
          json: base.json,
        });
        process.exitCode = result.exitCode;
      } finally {
        await stack.close();
      }
    });
}

/** Why this run cannot be resumed here, in words; null when it can. */
async function whyNot(store: ReturnType<typeof openStore>, run: RunRecord): Promise<string | null> {
  if (run.state === "passed" || run.state === "failed" || run.state === "cancelled") {
    return `run ${run.id} is ${run.state}: it does not continue (\`forge run\` starts a new one)`;
  }
  if (run.state === "paused") {
    const pending = (await store.listRequests(run.id)).filter((q) => q.status === "pending");
    if (pending.length > 0) {
      return `run ${run.id} waits for an answer to ${pending.map((q) => `${q.id} ("${q.question}")`).join(", ")}: \`forge answer ${run.id} <request-id> <answer>\` first`;
    }
  } else {
    const { liveness } = await runDriver(store, run);
    if (liveness.state === "alive") {
      return `run ${run.id} is still driven by ${describeDriver(liveness.driver)}; \`forge cancel ${run.id}\` stops it`;
    }
    if (liveness.state === "unknown" && liveness.driver) {
      return `run ${run.id} is ${run.state}, and ${liveness.why}: resume it there`;
    }
  }
  if (!existsSync(run.repo.remote) || !statSync(run.repo.remote).isDirectory()) {
    return `run ${run.id} works on ${run.repo.remote}, which is not a directory here (a run the App started continues in \`forge serve\`)`;
  }
  return null;
}

function providerOf(run: RunRecord): ProviderName {
  const name = (run.snapshot.content.provider as { name?: unknown } | undefined)?.name;
  return name === "codex" ? "codex" : "claude";
}
