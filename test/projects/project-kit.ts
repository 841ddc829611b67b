// The kit of the sample-project chains: a real git repository on `main` holding one of
// fixtures/projects (and, for a review, a branch carrying its ticket's change), the real stack
// (real claude binary behind the scripted model, bwrap boxes, git, SQLite), the scripted
// conversation of each role, and what a run left: its outcome, events and the pushed branch.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { openLocalStack } from "../../src/cli/local/stack.js";
import { loadProfiles } from "../../src/policy/index.js";
import { loadRepoPolicy } from "../../src/policy/repo-policy.js";
import type { ChainKind } from "../../src/roles/role-names.js";
import { gitRunnerIn } from "../../src/runner/git-runner.js";
import { buildSnapshotContent } from "../../src/runner/snapshot-content.js";
import type { ModelServer, Script, ToolResult, Turn } from "../../src/scripted-model/server.js";
import { gitIn, tempDir } from "../helpers/git-repo.js";
import { type ChainFixture, modelEnv, root } from "../runner/chain-helpers.js";
import { bash, oneByOne, read, reviewPass, SUMMARY, write } from "../security/scripted-turns.js";
import type { FileChange, ProjectName, Ticket } from "./tickets.js";

export { TICKETS } from "./tickets.js";

/** A real chain installs packages and runs a project's tests: room for the registry too. */
export const CHAIN_TIMEOUT_MS = 180_000;

/** The branch a review chain reviews (the ticket's change, one commit on top of main). */
export const REVIEW_BRANCH = "feature/ticket";

/** What a local copy of a fixture may hold after someone ran it by hand: never copied. */
const LOCAL_LEFTOVERS = new Set(["node_modules", ".venv", "build", "__pycache__", ".pytest_cache"]);

/** Applies a ticket's changes to a checkout, as the builder's Edits and Writes would. */
export function applyChanges(dir: string, changes: readonly FileChange[]): void {
  for (const c of changes) {
    const file = join(dir, c.path);
    if ("content" in c) {
      writeFileSync(file, c.content);
      continue;
    }
    const text = readFileSync(file, "utf8");
    if (text.split(c.find).length !== 2) {
      throw new Error(`${c.path}: the ticket's edit expects ${JSON.stringify(c.find)} once`);
    }
    writeFileSync(
      file,
      text.replace(c.find, () => c.replace),
    );
  }
}

/**
 * A git repository on `main` holding fixtures/projects/<project>; `mutate` changes main's files
 * before the commit; with `branch`, that branch carries the ticket's change (main stays checked
 * out: it is the default branch the config is read from).
 */
export function makeProjectRepo(
  ticket: Ticket,
  dir: string,
  opts: { branch?: string; mutate?: (dir: string) => void } = {},
): void {
  cpSync(join(root, "fixtures", "projects", ticket.project), dir, {
    recursive: true,
    filter: (src) => !LOCAL_LEFTOVERS.has(src.split("/").pop() ?? ""),
  });
  opts.mutate?.(dir);
  gitIn(dir, "init", "-q", "-b", "main");
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "-q", "-m", `${ticket.project}: the sample project`);
  if (!opts.branch) return;
  gitIn(dir, "checkout", "-q", "-b", opts.branch);
  applyChanges(dir, ticket.changes);
  gitIn(dir, "commit", "-q", "-am", ticket.title);
  gitIn(dir, "checkout", "-q", "main");
}

/** The architect reads the README (and what setup left, when there is such a file), then plans. */
function architect(ticket: Ticket): Turn[] {
  const files = [...new Set(ticket.changes.map((c) => c.path))];
  return [
    ...oneByOne([
      read("README.md"),
      ...(ticket.setupArtifact ? [read(ticket.setupArtifact.path)] : []),
    ]),
    {
      structured: {
        verdict: "PASS",
        summary: SUMMARY,
        plan: {
          tasks: [
            {
              objective: ticket.title,
              files,
              steps: [`Change ${files.join(", ")}`, `Run ${ticket.testCommand}`],
              verification: `${ticket.testCommand} passes`,
            },
          ],
        },
      },
    },
  ];
}

/** The builder reads each file before its first edit, edits, writes, then runs the tests. */
export function builderTurns(ticket: Ticket): Turn[] {
  const seen = new Set<string>();
  const calls = ticket.changes.flatMap((c) => {
    if ("content" in c) return [write(c.path, c.content)];
    const edit = {
      name: "Edit",
      input: { file_path: c.path, old_string: c.find, new_string: c.replace },
    };
    if (seen.has(c.path)) return [edit];
    seen.add(c.path);
    return [read(c.path), edit];
  });
  return [
    ...oneByOne([...calls, bash(ticket.testCommand)]),
    {
      structured: {
        verdict: "PASS",
        summary: SUMMARY,
        evidence: [{ command: ticket.testCommand, exit_code: 0, output: "the tests pass" }],
      },
    },
  ];
}

/** A read-only reviewer: reads the changed files (and what setup left), then PASSes. */
function reviewTurns(ticket: Ticket, withArtifact: boolean): Turn[] {
  const files = [...new Set(ticket.changes.map((c) => c.path))];
  const artifact = withArtifact && ticket.setupArtifact ? [read(ticket.setupArtifact.path)] : [];
  return [...oneByOne([...files.map(read), ...artifact]), reviewPass()];
}

/** The scripted model of one chain on a sample project. */
export function projectScript(ticket: Ticket, chain: ChainKind): Script {
  const routes = [
    { marker: "forgechain step: reviewer", turns: reviewTurns(ticket, true) },
    { marker: "forgechain step: security", turns: reviewTurns(ticket, false) },
  ];
  if (chain === "change") {
    routes.unshift(
      { marker: "forgechain step: architect", turns: architect(ticket) },
      { marker: "forgechain step: builder", turns: builderTurns(ticket) },
    );
  }
  return { turns: [], finalText: "Done.", routes };
}

export interface ProjectRun {
  f: ChainFixture;
  ticket: Ticket;
  final: { id: string; state: string; branch?: string | null };
  steps: Awaited<ReturnType<ChainFixture["stack"]["engine"]["status"]>>["steps"];
  events: Array<{ type: string; data: Record<string, unknown> }>;
}

/**
 * One chain on a sample project, to its end: a change chain from main, or a review chain of
 * REVIEW_BRANCH against main. The caller cleans up (`r.f.cleanup()`).
 */
export async function runProject(
  server: ModelServer,
  ticket: Ticket,
  opts: { chain: ChainKind; mutate?: (dir: string) => void; script?: Script },
): Promise<ProjectRun> {
  const t = tempDir(`forge-project-${ticket.project}-`);
  const repo = join(t.dir, "repo");
  const forgeHome = join(t.dir, "forge-home");
  const review = opts.chain === "review";
  let stack: ReturnType<typeof openLocalStack> | undefined;
  try {
    makeProjectRepo(ticket, repo, {
      ...(review ? { branch: REVIEW_BRANCH } : {}),
      ...(opts.mutate ? { mutate: opts.mutate } : {}),
    });
    const policy = await loadRepoPolicy(repo, {
      git: gitRunnerIn(repo),
      profiles: loadProfiles(join(root, "profiles")),
    });
    stack = openLocalStack({
      root,
      forgeHome,
      env: modelEnv(server),
      box: "bwrap",
      ownWork: false,
      provider: "claude",
      policy,
    });
    const opened = stack;
    const f: ChainFixture = {
      dir: t.dir,
      repo,
      forgeHome,
      policy,
      stack: opened,
      cleanup: async () => {
        await opened.close();
        t.cleanup();
      },
    };
    server.setScript(opts.script ?? projectScript(ticket, opts.chain));
    server.reset();
    const snapshotContent = await buildSnapshotContent({
      installRoot: root,
      remote: repo,
      ref: "main",
      provider: { name: "claude", version: "test" },
      config: policy.config,
    });
    const run = await opened.engine.startRun({
      chain: opts.chain,
      task: { title: review ? `Review: ${ticket.title}` : ticket.title, body: ticket.body },
      repo: { remote: repo, baseRef: "main", ...(review ? { headRef: REVIEW_BRANCH } : {}) },
      snapshotContent,
      requestBudget: policy.config.budgets.requestBudget.value,
    });
    const final = await opened.engine.drive(run.id);
    const status = await opened.engine.status(run.id);
    const events = await opened.store.events(run.id);
    return { f, ticket, final, steps: status.steps, events };
  } catch (error) {
    await stack?.close();
    t.cleanup();
    throw error;
  }
}

/** The result of a scripted Bash call running exactly `command` (undefined: it never ran). */
export function bashResult(server: ModelServer, command: string): ToolResult | undefined {
  return server.toolResults.find((r) => r.name === "Bash" && r.input?.command === command);
}

/** The result of a scripted Read of `path` by the `nth` reader of it (0: the first). */
export function readResult(server: ModelServer, path: string, nth = 0): ToolResult | undefined {
  return server.toolResults.filter((r) => r.name === "Read" && r.input?.file_path === path)[nth];
}

/** A tool result's text without terminal colours. */
export function plain(r: ToolResult | undefined): string {
  return stripVTControlCharacters(r?.content ?? "");
}

/**
 * The run's own setup phase: `setup:` finished once, successfully, before the first step
 * started (never the setup of the controls' checkout after the builder).
 */
export function setupPhase(events: ProjectRun["events"]): {
  before: Array<{ type: string; data: Record<string, unknown> }>;
  firstStep: number;
} {
  const firstStep = events.findIndex((e) => e.type === "step.started");
  const upTo = firstStep < 0 ? events.length : firstStep;
  const before = events
    .slice(0, upTo)
    .filter((e) => /^setup\b.*finished$/.test(e.type) && e.data.for !== "controls");
  return { before, firstStep };
}

/** The files the pushed branch changes against main, the run's own output files left out. */
export function changedFiles(r: ProjectRun): string[] {
  const branch = r.final.branch ?? "";
  return gitIn(r.f.repo, "diff", "--name-only", `main...${branch}`)
    .split("\n")
    .filter((p) => p !== "" && !p.startsWith(".forge/"))
    .sort();
}

/** The run's end in one line, for assertion messages: states and every step's reasons. */
export function outcome(r: ProjectRun): string {
  const steps = r.steps.map(
    (s) =>
      `${s.role}=${s.state}${s.decision ? ` (${s.decision.reasons.join("; ").slice(0, 400)})` : ""}`,
  );
  const setup = r.events
    .filter((e) => e.type.startsWith("setup"))
    .map((e) => `${e.type}[${String(e.data.for)}] ok=${String(e.data.ok)}: ${tail(e.data.output)}`);
  const ended = r.events.find((e) => e.type === "run.finished")?.data.reasons;
  const why = Array.isArray(ended) ? ended.map((x) => tail(x)).join("; ") : "";
  return [`run ${r.final.state}${why ? ` (${why})` : ""}; ${steps.join(", ")}`, ...setup].join(
    "\n",
  );
}

function tail(output: unknown): string {
  return typeof output === "string" ? output.slice(-300).replace(/\s+/g, " ") : "";
}

export type { ProjectName, Ticket };
