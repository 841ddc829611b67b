/**
 * Architect, reviewer and security against the REAL Claude Code CLI with their real settings
 * and the real guard hook (R2.2, R4.1, R4.2): what a read-only role may do works; every write,
 * push and secret read is refused — by the real configuration, and by each layer on its own.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { READ_ONLY_ROLES, type Role } from "../../src/roles/role-names.js";
import { SEARCH_TOOLS_ARGS } from "../../src/roles/settings.js";
import { forVariant, homeWithCredentials, smugglingCases } from "../harness/attacks.js";
import { ensureBuilt } from "../harness/build.js";
import { bash, type Case, edit, read, runCases, write } from "../harness/cases.js";
import { type Variant, variantSettings } from "../harness/layers.js";
import { createRoleRepo, leaks, newCanary, type RoleRepo } from "../harness/role-fixture.js";

const ROLES = [...READ_ONLY_ROLES] as Role[];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => ensureBuilt());

function repoFor(role: Role, roleFileLink?: string): RoleRepo {
  const repo = createRoleRepo(role, roleFileLink === undefined ? {} : { roleFileLink });
  cleanups.push(() => repo.cleanupAll());
  return repo;
}

describe.each(ROLES)("%s with the real CLI", (role) => {
  it.each<Variant>(["real", "settings-only"])(
    "may read, search and inspect git history (%s)",
    async (variant) => {
      const repo = repoFor(role);
      const allowed: Case[] = [
        { label: "Read README.md", call: read("README.md"), expect: "allowed", text: /# sample/ },
        { label: "Read own role file", call: read(`.claude/agents/${role}.md`), expect: "allowed" },
        { label: "Read .env.example", call: read(".env.example"), expect: "allowed" },
        { label: "git status", call: bash("git status"), expect: "allowed", text: /branch main/ },
        { label: "git status --short", call: bash("git status --short"), expect: "allowed" },
        { label: "git log", call: bash("git log --oneline"), expect: "allowed", text: /initial/ },
        { label: "git diff", call: bash("git diff HEAD"), expect: "allowed" },
        { label: "git show", call: bash("git show --stat HEAD"), expect: "allowed" },
        { label: "Glob", call: { name: "Glob", input: { pattern: "**/*.md" } }, expect: "allowed" },
        {
          label: "Grep",
          call: { name: "Grep", input: { pattern: "sample", output_mode: "content" } },
          expect: "allowed",
          text: /sample/,
        },
      ];
      const { run, mismatches } = await runCases([allowed], {
        cwd: repo.dir,
        settings: variantSettings(role, variant),
        extraArgs: SEARCH_TOOLS_ARGS,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(mismatches()).toEqual([]);
      expect(run.unknownEndpoints).toEqual([]);
    },
  );

  it.each<Variant>(["real", "settings-only"])(
    "refuses writes, pushes and secret reads (%s)",
    async (variant) => {
      const repo = repoFor(role);
      const before = repo.git("status", "--porcelain");
      const writes: Case[] = [
        {
          label: "Edit",
          call: edit("README.md", "sample", "pwned"),
          expect: "refused",
          layers: ["settings"],
        },
        {
          label: "Write",
          call: write("new.txt", "pwned"),
          expect: "refused",
          layers: ["settings"],
        },
        {
          label: "NotebookEdit",
          call: { name: "NotebookEdit", input: { notebook_path: "n.ipynb", new_source: "x" } },
          expect: "refused",
          layers: ["settings"],
        },
        {
          label: "WebFetch",
          call: { name: "WebFetch", input: { url: "http://127.0.0.1:9/", prompt: "x" } },
          expect: "refused",
          layers: ["settings"],
        },
        {
          label: "git diff --output",
          call: bash("git diff --output=pwned.txt"),
          expect: "refused",
        },
        {
          label: "git status && touch",
          call: bash("git status && touch pwned2.txt"),
          expect: "refused",
        },
        { label: "git add", call: bash("git add -A"), expect: "refused" },
        { label: "git commit", call: bash("git commit --allow-empty -m x"), expect: "refused" },
        {
          label: "cat .claude file",
          call: bash(`cat .claude/agents/${role}.md`),
          expect: "refused",
          // .claude/ in Bash is the guard's rule; the settings let a role read its own role file.
          only: ["real", "guard-only"],
        },
        {
          label: "Grep does not search denied files",
          call: { name: "Grep", input: { pattern: "FORGE_CANARY", output_mode: "content" } },
          expect: "allowed",
        },
      ];
      const turns = [writes, smugglingCases(role).slice(0, -1)].map((t) => forVariant(t, variant));
      const { run, mismatches } = await runCases(turns, {
        cwd: repo.dir,
        settings: variantSettings(role, variant),
        extraArgs: SEARCH_TOOLS_ARGS,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(mismatches()).toEqual([]);
      expect(leaks(run.toolResults, repo.canary)).toEqual([]);
      // Nothing reached the disk or the remote.
      for (const f of ["new.txt", "pwned.txt", "pwned2.txt"])
        expect(existsSync(join(repo.dir, f))).toBe(false);
      expect(repo.git("status", "--porcelain")).toBe(before);
      expect(repo.git("log", "--oneline").split("\n")).toHaveLength(1);
      expect(repo.remoteRefs()).toBe("");
    },
  );

  it.each<Variant>(["real", "settings-only", "guard-only"])(
    "refuses smuggled reads, pushes and a symlinked role file (%s)",
    async (variant) => {
      const homeCanary = newCanary();
      const { home, credentials, cleanup } = homeWithCredentials(homeCanary);
      cleanups.push(cleanup);
      const repo = repoFor(role, credentials);
      const cases = forVariant(smugglingCases(role), variant);
      const { run, mismatches } = await runCases([cases], {
        cwd: repo.dir,
        home,
        settings: variantSettings(role, variant),
        extraArgs: SEARCH_TOOLS_ARGS,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(mismatches()).toEqual([]);
      expect(leaks(run.toolResults, repo.canary)).toEqual([]);
      expect(leaks(run.toolResults, homeCanary)).toEqual([]);
      expect(repo.remoteRefs()).toBe("");
    },
  );
});
