// What a chain on a sample project must show, checked softly so one run reports every gap at
// once: the builder's own test command allowed and passing, the setup phase before the first
// step, its results readable by read-only steps, the chain PASSing, the branch carrying the
// change and nothing that setup left behind.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { setupToRun } from "../../src/policy/index.js";
import type { ModelServer } from "../../src/scripted-model/server.js";
import { gitIn, tempDir } from "../helpers/git-repo.js";
import {
  applyChanges,
  bashResult,
  changedFiles,
  makeProjectRepo,
  outcome,
  type ProjectRun,
  plain,
  readResult,
  setupPhase,
  type Ticket,
} from "./project-kit.js";

/** Each changed file as the ticket leaves it, and one line of it that main does not have. */
export function expectedFiles(ticket: Ticket): Map<string, { content: string; newLine: string }> {
  const t = tempDir("forge-project-expected-");
  try {
    makeProjectRepo(ticket, t.dir);
    const before = new Map<string, string>();
    for (const c of ticket.changes) {
      if (!before.has(c.path)) before.set(c.path, readText(join(t.dir, c.path)));
    }
    applyChanges(t.dir, ticket.changes);
    const out = new Map<string, { content: string; newLine: string }>();
    for (const [path, old] of before) {
      const content = readFileSync(join(t.dir, path), "utf8");
      const oldLines = new Set(old.split("\n"));
      const newLine =
        content.split("\n").find((l) => l.trim().length > 8 && !oldLines.has(l)) ?? "";
      out.set(path, { content, newLine: newLine.trim() });
    }
    return out;
  } finally {
    t.cleanup();
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function hasSetup(r: ProjectRun): boolean {
  return setupToRun(r.f.policy.config).length > 0;
}

/** `setup:` ran once, as the run's own phase, before the first step — and passed. */
function checkSetupPhase(r: ProjectRun, why: string): void {
  if (!hasSetup(r)) return;
  const phase = setupPhase(r.events);
  expect.soft(phase.before.length, `setup did not run once before the first step\n${why}`).toBe(1);
  if (phase.before[0]) {
    expect.soft(phase.before[0].data.ok, `the setup phase failed\n${why}`).toBe(true);
  }
}

/** A read-only step read what setup left (node_modules, .venv): visible, and whole. */
function checkArtifactRead(server: ModelServer, r: ProjectRun, nth: number, who: string): void {
  const artifact = r.ticket.setupArtifact;
  if (!artifact) return;
  const seen = readResult(server, artifact.path, nth);
  const what = `${who} reading ${artifact.path}: ${plain(seen).slice(0, 300)}`;
  expect.soft(seen, `${who} never read ${artifact.path}`).toBeDefined();
  if (!seen) return;
  expect.soft(seen.isError, what).toBe(false);
  if (!seen.isError) expect.soft(plain(seen), what).toMatch(artifact.holds);
}

export function checkChangeChain(server: ModelServer, r: ProjectRun): void {
  const why = outcome(r);
  const { testCommand } = r.ticket;
  const tests = bashResult(server, testCommand);
  const said = `${testCommand} →\n${plain(tests).slice(-1500)}\n${why}`;
  expect.soft(tests, `the builder never ran ${testCommand}\n${why}`).toBeDefined();
  if (tests) {
    expect.soft(plain(tests), said).not.toMatch(/Permission to use Bash has been denied/);
    expect.soft(tests.isError, said).toBe(false);
    if (!tests.isError)
      for (const re of r.ticket.passes) expect.soft(plain(tests), said).toMatch(re);
  }

  expect.soft(r.final.state, why).toBe("passed");
  expect
    .soft(
      r.steps.map((s) => [s.role, s.state]),
      why,
    )
    .toEqual([
      ["architect", "passed"],
      ["builder", "passed"],
      ["reviewer", "passed"],
      ["security", "passed"],
    ]);
  checkSetupPhase(r, why);
  checkArtifactRead(server, r, 0, "the architect");

  const branch = r.final.branch ?? "";
  expect.soft(branch, `no branch was pushed\n${why}`).toMatch(/^forge\//);
  if (!branch || r.final.state !== "passed") return;
  const expected = expectedFiles(r.ticket);
  for (const [path, { content }] of expected) {
    expect
      .soft(gitIn(r.f.repo, "show", `${branch}:${path}`), `${branch}:${path}`)
      .toBe(content.trim());
  }
  // Only the ticket's files: nothing setup or the tests left (node_modules, a lockfile npm
  // wrote, .venv, build/, caches) reaches the branch.
  expect.soft(changedFiles(r), `what ${branch} changes`).toEqual([...expected.keys()].sort());
  expect.soft(gitIn(r.f.repo, "rev-list", "--count", "main"), "main moved").toBe("1");
}

export function checkReviewChain(server: ModelServer, r: ProjectRun): void {
  const why = outcome(r);
  expect.soft(r.final.state, why).toBe("passed");
  expect
    .soft(
      r.steps.map((s) => [s.role, s.state]),
      why,
    )
    .toEqual([
      ["reviewer", "passed"],
      ["security", "passed"],
    ]);
  checkSetupPhase(r, why);
  // The reviewers read the branch under review, not main.
  for (const [path, { newLine }] of expectedFiles(r.ticket)) {
    const seen = readResult(server, path, 0);
    if (!seen) continue; // the reviewer never got that far: the run's state says why
    expect.soft(seen.isError, `reading ${path}: ${plain(seen).slice(0, 300)}`).toBe(false);
    expect.soft(plain(seen), `the reviewer's view of ${path}`).toContain(newLine);
  }
  checkArtifactRead(server, r, 0, "the reviewer");
  // A review pushes nothing.
  expect.soft(gitIn(r.f.repo, "branch", "--list", "forge/*"), "a review pushed a branch").toBe("");
}
