// `forge box prove` on real git repos, in real bwrap boxes, with the real claude CLI against the
// scripted enforcement model. The proof is stored through the real SQLite journal.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { measureProofFacts } from "../../src/boxes/proof-current.js";
import { isProofValid } from "../../src/boxes/proof-facts.js";
import { type ProveOptions, prove } from "../../src/boxes/prove.js";
import { rootOnlyFileCheck } from "../../src/boxes/prove-host.js";
import { claudeProvider, resolveClaudeBinary } from "../../src/providers/claude.js";
import { effectiveSettings } from "../../src/roles/settings.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { ensureBuilt } from "../harness/build.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLAUDE = resolveClaudeBinary(ROOT);
const FAKE_KEY = `sk-ant-fake-${"x".repeat(20)}`;

let endpoint: Server;
let endpointUrl: string;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  // The hook commands in the effective settings run dist/guard.cjs (bin/forge-guard.cjs).
  ensureBuilt();
  endpoint = createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(
  files: Record<string, string> = { "README.md": "hello\n", "check.sh": "test -f README.md\n" },
): string {
  const t = tempDir("forge-prove-repo-");
  cleanups.push(t.cleanup);
  makeRepo(t.dir, files);
  return t.dir;
}

function options(over: Partial<ProveOptions> = {}): ProveOptions {
  return {
    repo: repo(),
    box: "bwrap",
    setup: ["echo setting up > setup.log"],
    validate: {
      test: { run: "sh check.sh", advisory: false },
      security: { run: "exit 1", advisory: true },
    },
    settingsFor: (role) => effectiveSettings(role),
    claudeBinary: CLAUDE,
    agent: claudeProvider({ binary: CLAUDE }),
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: endpointUrl },
    loginFile: "/nonexistent/login.json",
    ...over,
  };
}

describe("forge box prove (R7.2)", () => {
  it("proves a bwrap box end to end, stores the proof, and the proof goes stale when validate changes", async () => {
    const t = tempDir("forge-prove-journal-");
    cleanups.push(t.cleanup);
    const store = openJournal(join(t.dir, "journal.db"));
    try {
      const opts = options({ store });
      const report = await prove(opts);
      const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
      expect(
        report.checks.filter((c) => !c.ok),
        JSON.stringify(report.checks, null, 1),
      ).toEqual([]);
      expect(report.ok).toBe(true);
      expect(byName.image?.detail).toMatch(/n\/a/);
      expect(byName.toolbox?.detail).toMatch(/linux\/x64\/glibc/);
      expect(byName["validate: security"]?.detail).toMatch(/failed .*\(advisory\)/);
      expect(byName["harness version"]?.detail).toMatch(/claude \d+\.\d+\.\d+/);
      expect(byName["harness credentials"]?.detail).toMatch(/ANTHROPIC_API_KEY/);
      expect(byName["host root-only file unreadable"]?.detail).toMatch(
        process.getuid?.() === 0 ? /permission denied/ : /not being root/,
      );
      expect(byName["host paths outside the allowlist invisible"]?.detail).toMatch(
        /^absent in the box: .*outside-probe/,
      );
      for (const role of ["architect", "builder", "reviewer", "security"]) {
        expect(byName[`enforcement: ${role}`]?.detail).toMatch(/git push .*refused/);
        expect(byName[`enforcement: ${role}`]?.detail).toMatch(/Read .*\.env: refused/);
      }
      expect(byName["enforcement: reviewer"]?.detail).toMatch(/Write .*refused/);
      // Names only, never values.
      expect(JSON.stringify(report)).not.toContain(FAKE_KEY);
      expect(report.box?.network).toBe("host");

      const stored = await store.latestProof(report.boxKey);
      expect(stored?.facts).toEqual(report.facts);
      expect(stored?.ok).toBe(true);
      expect(isProofValid(stored, report.facts)).toEqual({ valid: true });

      // What the runner measures before picking up work, without re-proving:
      const current = {
        box: "bwrap" as const,
        setup: opts.setup,
        validate: opts.validate,
        claudeBinary: CLAUDE,
        settingsFor: opts.settingsFor,
        network: "host",
      };
      expect(await measureProofFacts(current)).toEqual(report.facts);
      const changed = await measureProofFacts({
        ...current,
        validate: { ...opts.validate, test: { run: "sh check.sh --strict", advisory: false } },
      });
      expect(isProofValid(stored, changed)).toMatchObject({ valid: false, changed: ["validate"] });
    } finally {
      await store.close();
    }
  });

  it("a failed setup skips the controls that depend on it, once, with its fix; harness checks still run", async () => {
    const report = await prove(options({ setup: ["echo broken >&2; exit 3"], roles: [] }));
    const names = report.checks.map((c) => [c.name, c.ok, c.skipped ?? false]);
    expect(names).toContainEqual(["setup: echo broken >&2; exit 3", false, false]);
    expect(names).toContainEqual(["validate: test", false, true]);
    expect(names).toContainEqual(["harness version", true, false]);
    const setup = report.checks.find((c) => c.name.startsWith("setup:"));
    expect(setup?.detail).toMatch(/exit 3: broken/);
    expect(setup?.fix).not.toBe("");
    expect(report.ok).toBe(false);
    expect(report.proof.ok).toBe(false);
  });

  it("a blocking control that fails, and an advisory one that cannot even start, fail the proof", async () => {
    const report = await prove(
      options({
        setup: [],
        roles: [],
        validate: {
          test: { run: "exit 1", advisory: false },
          security: { run: "no-such-scanner-xyz", advisory: true },
        },
      }),
    );
    const v = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(v["validate: test"]?.ok).toBe(false);
    expect(v["validate: security"]?.ok).toBe(false);
    expect(v["validate: security"]?.detail).toMatch(/could not start/);
  });

  it("the enforcement check FAILS when the installed CLI does not refuse (permissive settings, no guard)", async () => {
    const report = await prove(
      options({
        setup: [],
        validate: {},
        roles: ["reviewer", "builder"],
        settingsFor: () => ({ permissions: { allow: ["Bash", "Read", "Write"], deny: [] } }),
      }),
    );
    const reviewer = report.checks.find((c) => c.name === "enforcement: reviewer");
    const builder = report.checks.find((c) => c.name === "enforcement: builder");
    expect(reviewer?.ok).toBe(false);
    // The read-only flags still refuse the Write and the push; the .env reads go through.
    expect(reviewer?.detail).toMatch(/Write .*refused by settings\/flags/);
    expect(reviewer?.detail).toMatch(/git push .*refused by settings\/flags/);
    expect(reviewer?.detail).toMatch(/Read .*\.env: NOT refused/);
    expect(reviewer?.detail).toMatch(/\.env content reached the model/);
    // The builder has no read-only flags: its push lands.
    expect(builder?.ok).toBe(false);
    expect(builder?.detail).toMatch(/git push .*NOT refused/);
    expect(builder?.detail).toMatch(/the push reached the remote/);
    // The sentinel itself is never echoed into the report.
    expect(JSON.stringify(report)).not.toMatch(/FORGE_PROVE_[0-9a-f]{24}/);
    expect(report.ok).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "FAILS on a box that can read a root-only host file (a root runner's box left as root)",
    async () => {
      const report = await prove(
        options({ user: { uid: 0, gid: 0, switched: false }, roles: [], setup: [], validate: {} }),
      );
      const check = report.checks.find((c) => c.name === "host root-only file unreadable");
      expect(check?.ok).toBe(false);
      expect(check?.detail).toMatch(/READ a 0600 root-owned host file/);
      expect(check?.fix).toMatch(/FORGE_BOX_UID/);
      expect(JSON.stringify(report)).not.toMatch(/FORGE_ROOT_ONLY_[0-9a-f]{24}/);
      expect(report.ok).toBe(false);
    },
  );

  it("FAILS on a box that shows a host path outside its allowlist", async () => {
    // A deployment naming a parent of FORGE_HOME as a toolchain: the journal shows in the box.
    const t = tempDir("forge-prove-tools-");
    cleanups.push(t.cleanup);
    chmodSync(t.dir, 0o755);
    const forgeHome = join(t.dir, "forge-home");
    mkdirSync(forgeHome);
    writeFileSync(join(forgeHome, "journal.db"), "not really sqlite\n");
    const report = await prove(
      options({
        env: { ...options().env, FORGE_HOME: forgeHome, FORGE_BOX_PATHS: t.dir },
        roles: [],
        setup: [],
        validate: {},
      }),
    );
    const check = report.checks.find(
      (c) => c.name === "host paths outside the allowlist invisible",
    );
    expect(check?.ok).toBe(false);
    expect(check?.detail).toBe(`visible in the box: ${join(forgeHome, "journal.db")}`);
    expect(report.ok).toBe(false);
  });

  it("a runner that is not root covers the root-only check by itself, and says so", async () => {
    const check = await rootOnlyFileCheck({
      kind: "bwrap",
      base: "/nonexistent",
      ctx: { box: null as never, workspace: "/", home: "/", env: {} },
      probeBox: () => {
        throw new Error("no probe box is needed");
      },
      processUid: 1000,
    });
    expect(check).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/not being root.*1000/),
    });
  });

  it("a worktree box without FORGE_OWN_WORK stops at 'box starts' naming FORGE_OWN_WORK", async () => {
    const report = await prove(options({ box: "worktree" }));
    const start = report.checks.find((c) => c.name === "box starts");
    expect(start?.ok).toBe(false);
    expect(start?.detail).toMatch(/FORGE_OWN_WORK/);
    expect(start?.fix).toMatch(/FORGE_OWN_WORK/);
    expect(report.checks.filter((c) => c.skipped).map((c) => c.name)).toEqual(
      expect.arrayContaining(["image contract", "harness version", "enforcement: reviewer"]),
    );
  });

  it("without credentials the harness check says what to set, and the endpoint check is skipped", async () => {
    const report = await prove(
      options({ env: { PATH: process.env.PATH }, roles: [], setup: [], validate: {} }),
    );
    const cred = report.checks.find((c) => c.name === "harness credentials");
    expect(cred?.ok).toBe(false);
    expect(cred?.fix).toMatch(/ANTHROPIC_API_KEY/);
    expect(report.checks.find((c) => c.name === "harness endpoint")?.skipped).toBe(true);
  });
});
