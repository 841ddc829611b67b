// Role steps on GitHub Actions, whole chains, on the kinds of repositories our users have (the
// world: actions-kit.ts). The fake GitHub starts a "runner" on each `workflow_dispatch`; each
// job is a fresh machine: it clones the project, runs its `setup:` (npm ci from the registry, a
// virtual environment), proves its box, runs its step, and the builder's job runs the project's
// own tests and pushes its work. The App only dispatches, checks, recomputes and judges.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git } from "../../src/runner/git.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { issueLabeled, OWNER, REPO } from "../app/payloads.js";
import { assertMatchesOpenApi } from "../harness/openapi-check.js";
import { expectedFiles } from "../projects/chain-checks.js";
import {
  bashResult,
  makeProjectRepo,
  plain,
  projectScript,
  readResult,
  TICKETS,
} from "../projects/project-kit.js";
import type { ProjectName, Ticket } from "../projects/tickets.js";
import { type ActionsWorld, startActionsWorld } from "./actions-kit.js";

const CHAIN_MS = 600_000;
type Events = Array<{ type: string; data: Record<string, unknown> }>;

/** The project as the fake GitHub's repository OWNER/REPO, on main. */
function projectRemote(project: ProjectName) {
  return async (root: string) => {
    const src = join(root, "src");
    makeProjectRepo(TICKETS[project], src);
    const gitRoot = join(root, "git");
    const bare = join(gitRoot, OWNER, `${REPO}.git`);
    mkdirSync(join(gitRoot, OWNER), { recursive: true });
    await git(["clone", "--quiet", "--bare", src, bare], { cwd: root });
    return { gitRoot, bare };
  };
}

const gitOut = (bare: string, ...args: string[]) =>
  execFileSync("git", ["-C", bare, ...args], { encoding: "utf8" }).trim();

/** One dispatch per role, on the base branch, with nothing but the step's coordinates. */
function checkDispatches(w: ActionsWorld): void {
  expect(w.state.dispatches.map((d) => d.inputs.forge_step)).toEqual(["0", "1", "2", "3"]);
  for (const d of w.state.dispatches) {
    expect(d.workflow).toBe("forgechain-steps.yml");
    expect(d.ref).toBe("main");
    expect(Object.keys(d.inputs).sort()).toEqual(["forge_attempt", "forge_run", "forge_step"]);
  }
}

/** Each job set the project up on its own machine and said so; the builder's tests passed. */
function checkProjectRan(w: ActionsWorld, ticket: Ticket, events: Events): void {
  const setups = events.filter((e) => e.type === "setup.finished");
  expect(setups.length).toBe(4);
  for (const s of setups) expect(s.data.ok, JSON.stringify(s.data).slice(0, 1500)).toBe(true);
  const tests = bashResult(w.model, ticket.testCommand);
  expect(tests, `the builder never ran ${ticket.testCommand}`).toBeDefined();
  expect(tests?.isError, plain(tests).slice(-1500)).toBe(false);
  for (const re of ticket.passes) expect(plain(tests)).toMatch(re);
  // What setup left is readable in the read-only jobs (the architect's and the reviewer's).
  if (!ticket.setupArtifact) return;
  for (const nth of [0, 1]) {
    const seen = readResult(w.model, ticket.setupArtifact.path, nth);
    expect(seen?.isError, plain(seen).slice(0, 500)).toBe(false);
    expect(plain(seen)).toMatch(ticket.setupArtifact.holds);
  }
}

/**
 * The builder's job pushed its work under the run's work ref, which the App fetched, checked
 * and adopted; the App pushed the branch on it, carrying the ticket's files and nothing setup
 * left behind. Every report came from a job of the repository's workflow; none was refused.
 */
async function checkWork(w: ActionsWorld, ticket: Ticket, runId: string, events: Events) {
  const work = gitOut(w.bare, "rev-parse", `refs/forge/runs/${runId}/work-1-1`);
  const gate = await w.waitFor("forge/gate", () =>
    w.state.checkRuns.find((c) => c.name === "forge/gate"),
  );
  expect(gate.conclusion).toBe("success");
  expect(gitOut(w.bare, "rev-parse", `${gate.headSha}^`)).toBe(work);
  const expected = expectedFiles(ticket);
  for (const [path, { content }] of expected) {
    expect(gitOut(w.bare, "show", `${gate.headSha}:${path}`)).toBe(content.trim());
  }
  const changed = gitOut(w.bare, "diff", "--name-only", `main...${gate.headSha}`)
    .split("\n")
    .filter((p) => p !== "" && !p.startsWith(".forge/"))
    .sort();
  expect(changed).toEqual([...expected.keys()].sort());

  const reported = events.filter((e) => e.type === "actions.step.reported");
  expect(reported.map((e) => e.data.index)).toEqual([0, 1, 2, 3]);
  for (const e of reported) expect(e.data.job).toMatchObject({ actor: "forgechain[bot]" });
  const adopted = events.filter((e) => e.type === "actions.work.adopted");
  expect(adopted.map((e) => e.data.sha)).toEqual([work]);
  expect(events.filter((e) => e.type === "actions.report.refused")).toEqual([]);
}

/**
 * The Node project with a lockfile in `npm test` (npm ci from the registry in every job: the
 * kind most users have, and the heaviest setup). Each chain costs minutes of CPU, four box
 * proofs and four setups, so others run by hand: FORGE_ACTIONS_PROJECTS=node-lock,python-pytest.
 */
const PROJECTS = (process.env.FORGE_ACTIONS_PROJECTS ?? "node-lock")
  .split(",")
  .map((p) => p.trim() as ProjectName);
for (const p of PROJECTS) if (!TICKETS[p]) throw new Error(`no sample project ${p}`);

describe.each<ProjectName>(PROJECTS)("%s on Actions runners", (project) => {
  const ticket = TICKETS[project];
  let w: ActionsWorld;

  beforeAll(async () => {
    w = await startActionsWorld({
      prefix: `forge-actions-${project}-`,
      repository: projectRemote(project),
      script: projectScript(ticket, "change"),
    });
  }, 180_000);

  afterAll(async () => {
    await w?.close();
  });

  it(
    "a 4-role chain passes with every step run by a dispatched job that sets the project up and proves its box",
    async () => {
      const serve = await w.serveWithActions("home");
      const issue = issueLabeled({
        sender: "alice",
        number: 50,
        title: ticket.title,
        body: ticket.body,
      });
      expect((await serve.deliver("issues", issue)).status).toBeLessThan(300);
      const final = await w.waitFor(
        "the chain to end",
        () =>
          w.state.commentsOn(50).find((c) => /change chain · (✅ passed|❌ failed)/.test(c.body)),
        CHAIN_MS - 60_000,
      );
      const codes = await Promise.all(w.jobs.map((j) => j.code));
      const logs = w.jobs.map((j) => j.log.join("").slice(-3000)).join("\n----\n");
      expect(final.body, logs).toContain("change chain · ✅ passed");
      checkDispatches(w);
      expect(codes, logs).toEqual([0, 0, 0, 0]);
      // Each runner is a machine forgechain has not seen: each job proved its box first.
      for (const j of w.jobs) expect(j.log.join("")).toContain("proved this runner's box");

      const runId = w.state.dispatches[0]?.inputs.forge_run ?? "";
      const journal = openJournal(join(w.root, "home", "journal.db"));
      let events: Events;
      try {
        events = await journal.events(runId);
        const steps = await journal.getSteps(runId);
        expect(steps.map((s) => [s.role, s.state])).toEqual([
          ["architect", "passed"],
          ["builder", "passed"],
          ["reviewer", "passed"],
          ["security", "passed"],
        ]);
      } finally {
        journal.close();
      }
      checkProjectRan(w, ticket, events);
      await checkWork(w, ticket, runId, events);
      for (const r of w.fake.api) {
        expect(r.problems, `${r.method} ${r.path}`).toEqual([]);
        assertMatchesOpenApi({ method: r.method, path: r.path, body: r.body });
      }
    },
    CHAIN_MS,
  );
});
