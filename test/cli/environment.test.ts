// Every variable of README's Environment table does what the README says, and a test shows it:
// the table is read here, each variable is mapped to the test that exercises it, and the
// variables nothing else covers are tested here.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { type ModelServer, startModelServer } from "../../src/scripted-model/server.js";
import { ensureBuilt } from "../harness/build.js";
import { gitIn } from "../helpers/git-repo.js";
import { demoRepo, forge, root, runIdOf, sandbox } from "./cli-kit.js";

/** Variable → the test files whose tests set it and check its effect. */
const COVERED: Record<string, string[]> = {
  ANTHROPIC_API_KEY: ["test/cli/run.test.ts", "test/providers/claude.test.ts"],
  ANTHROPIC_AUTH_TOKEN: ["test/cli/environment.test.ts", "test/providers/claude.test.ts"],
  CLAUDE_CODE_OAUTH_TOKEN: ["test/cli/environment.test.ts", "test/providers/claude.test.ts"],
  ANTHROPIC_BASE_URL: ["test/cli/no-hang.test.ts", "test/cli/endpoint-check.test.ts"],
  FORGE_HOME: ["test/cli/environment.test.ts", "test/cli/run.test.ts"],
  DATABASE_URL: ["test/store/open-store.test.ts", "test/cli/environment.test.ts"],
  FORGE_BOX_UID: ["test/boxes/box-user.test.ts"],
  FORGE_BOX_GID: ["test/boxes/box-user.test.ts"],
  FORGE_BOX_PATHS: ["test/boxes/allowlist.test.ts"],
  FORGE_OWN_WORK: ["test/boxes/prove.test.ts"],
  FORGE_VERIFY_TIMEOUT: ["test/cli/environment.test.ts", "test/guard/stop-verify.test.ts"],
  FORGE_IDLE_TIMEOUT: ["test/cli/no-hang.test.ts", "test/runner/agent-process.test.ts"],
  FORGE_EGRESS: [
    "test/policy/egress-env.test.ts",
    "test/cli/environment.test.ts",
    "test/runner/egress-door.test.ts",
  ],
  FORGE_EGRESS_SETUP: ["test/policy/egress-env.test.ts", "test/cli/environment.test.ts"],
  FORGE_EGRESS_CONTROLS: ["test/policy/egress-env.test.ts"],
};

/** The names in the first column of README's Environment table (`FORGE_OWN_WORK=1` → its name). */
function documentedVariables(): string[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split(/^## Environment$/m)[1]?.split(/^## /m)[0] ?? "";
  const names: string[] = [];
  for (const line of section.split("\n")) {
    const first = line.split("|")[1] ?? "";
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)(=[^`]*)?`/g)) names.push(m[1] as string);
  }
  return names;
}

describe("README's Environment table", () => {
  it("each documented variable has a test that sets it", () => {
    const names = documentedVariables();
    expect(names).toContain("FORGE_VERIFY_TIMEOUT");
    for (const name of names) {
      const files = COVERED[name];
      expect(files, `${name} is documented but no test is named for it`).toBeDefined();
      for (const file of files ?? []) {
        expect(readFileSync(join(root, file), "utf8"), `${file} does not use ${name}`).toContain(
          name,
        );
      }
    }
  });
});

let model: ModelServer;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  ensureBuilt();
  model = await startModelServer(demoScript());
});
afterAll(async () => model.close());
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function box() {
  const s = sandbox();
  cleanups.push(s.cleanup);
  return s;
}

describe("the variables themselves", () => {
  it("FORGE_HOME: the state directory, created 0700 with the journal in it", async () => {
    const s = box();
    const home = join(s.dir, "deep", "state");
    const r = await forge(["status"], { ...s.env, FORGE_HOME: home });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(existsSync(join(home, "journal.db"))).toBe(true);
  });

  it("DATABASE_URL that is not PostgreSQL's stops the command, naming it; nothing is made in FORGE_HOME", async () => {
    const s = box();
    const home = join(s.dir, "state");
    const r = await forge(["status"], {
      ...s.env,
      FORGE_HOME: home,
      DATABASE_URL: "mysql://db.example/forge",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/forge: DATABASE_URL must be a postgres:\/\/ URL/);
    expect(existsSync(join(home, "journal.db"))).toBe(false);
  });

  it("ANTHROPIC_AUTH_TOKEN and CLAUDE_CODE_OAUTH_TOKEN are credentials as much as the API key", async () => {
    const s = box();
    const repo = await demoRepo(s);
    const none = await forge(["run", "--repo", repo, "--task", "x"], s.env);
    expect(none.stderr).toMatch(/no model credentials/);
    for (const name of ["ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]) {
      // Past the credential check, the run stops at the endpoint (nothing listens there).
      const r = await forge(["run", "--repo", repo, "--task", "x"], {
        ...s.env,
        [name]: "forge-test-not-a-real-token",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      });
      expect(r.stderr, name).not.toMatch(/no model credentials/);
      expect(r.stderr, name).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:9/);
    }
  });

  it("FORGE_IDLE_TIMEOUT and FORGE_VERIFY_TIMEOUT that are not seconds stop the run, naming them", async () => {
    const s = box();
    const repo = await demoRepo(s);
    const env = { ...s.env, ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key" };
    const idle = await forge(["run", "--repo", repo, "--task", "x"], {
      ...env,
      FORGE_IDLE_TIMEOUT: "5m",
    });
    expect(idle.code).toBe(2);
    expect(idle.stderr).toMatch(/FORGE_IDLE_TIMEOUT="5m" is not a number of seconds/);
    const verify = await forge(["run", "--repo", repo, "--task", "x"], {
      ...env,
      FORGE_VERIFY_TIMEOUT: "0",
    });
    expect(verify.code).toBe(2);
    expect(verify.stderr).toMatch(/FORGE_VERIFY_TIMEOUT="0" is not a positive number of seconds/);
  });

  it("FORGE_EGRESS and FORGE_EGRESS_SETUP that cannot be read stop the run, naming them", async () => {
    const s = box();
    const repo = await demoRepo(s);
    const env = { ...s.env, ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key" };
    const mode = await forge(["run", "--repo", repo, "--task", "x"], {
      ...env,
      FORGE_EGRESS: "off",
    });
    expect(mode.code).toBe(2);
    expect(mode.stderr).toMatch(/FORGE_EGRESS="off" is not a network mode/);
    const setup = await forge(["run", "--repo", repo, "--task", "x"], {
      ...env,
      FORGE_EGRESS_SETUP: "https://registry.example.com/simple",
    });
    expect(setup.code).toBe(2);
    expect(setup.stderr).toMatch(
      /FORGE_EGRESS_SETUP: .* is a URL.*write the host only: registry\.example\.com/,
    );
  });

  it("FORGE_VERIFY_TIMEOUT: a scripts/verify.sh slower than it fails the builder as timed out", async () => {
    const s = box();
    const repo = await demoRepo(s);
    writeFileSync(join(repo, "scripts", "verify.sh"), "#!/bin/sh\nsleep 8\nsh tests/test.sh\n");
    gitIn(repo, "commit", "-qam", "a slow verify");
    model.setScript(demoScript());
    const env = {
      ...s.env,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
      FORGE_VERIFY_TIMEOUT: "2",
    };
    const r = await forge(["run", "--repo", repo, "--task", "Greet louder"], env);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(/builder\s+FAIL/);
    expect(r.stdout).toContain("scripts/verify.sh (timed out)");
    const status = await forge(["status", runIdOf(r.stdout)], env);
    expect(status.stdout).toContain("scripts/verify.sh (timed out)");
  }, 240_000);
});
