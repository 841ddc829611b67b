import { afterEach, describe, expect, it } from "vitest";
import {
  failureReason,
  outputTail,
  parseTimeoutSeconds,
  runVerifyFromBase,
  stopVerifyHook,
  VerifyBaseError,
} from "../../src/guard/stop-verify.js";
import { git, gitInput, makeRepo, removeDir, writeFiles } from "./stop-verify-repo.js";

const FAILING = "#!/usr/bin/env bash\necho 'lint ok'\necho 'test: 2 failed' >&2\nexit 3\n";
const PASSING = "#!/usr/bin/env bash\necho all good\n";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function repo(files: Record<string, string>) {
  const made = makeRepo(files);
  dirs.push(made.dir);
  return made;
}

function hookInput(cwd: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: "s-1",
    transcript_path: "/nonexistent/transcript.jsonl",
    cwd,
    hook_event_name: "Stop",
    stop_hook_active: false,
    ...extra,
  });
}

/** Env without any inherited CLAUDE_PROJECT_DIR / FORGE_* that would change the outcome. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.CLAUDE_PROJECT_DIR;
  delete base.FORGE_BASE_REF;
  delete base.FORGE_VERIFY_TIMEOUT;
  return { ...base, ...extra };
}

function parseBlock(stdout: string): { decision: string; reason: string } {
  const parsed = JSON.parse(stdout) as { decision: string; reason: string };
  expect(parsed.decision).toBe("block");
  return parsed;
}

describe("forge stop-verify hook", () => {
  it("blocks with exit code and output tail when the base verify.sh fails", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": FAILING });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(answer.exitCode).toBe(0);
    const { reason } = parseBlock(answer.stdout);
    expect(reason).toContain(`scripts/verify.sh (from base ${sha}) failed with exit 3`);
    expect(reason).toContain("test: 2 failed");
    expect(reason).toContain("lint ok");
  });

  it("is silent when the base verify.sh passes", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(answer).toEqual({ exitCode: 0, stdout: "" });
  });

  it("is silent when stop_hook_active is true, even though verify would fail", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": FAILING });
    const stdin = hookInput(dir, { stop_hook_active: true });
    const answer = await stopVerifyHook({ stdin, env: env({ FORGE_BASE_REF: sha }) });
    expect(answer.stdout).toBe("");
  });

  it("treats a non-boolean stop_hook_active as not active (verify still runs)", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": FAILING });
    const stdin = hookInput(dir, { stop_hook_active: "true" });
    const answer = await stopVerifyHook({ stdin, env: env({ FORGE_BASE_REF: sha }) });
    parseBlock(answer.stdout);
  });

  it("runs the base copy: a working-tree verify.sh edited to `exit 0` does not disarm it", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": FAILING });
    writeFiles(dir, { "scripts/verify.sh": "#!/usr/bin/env bash\nexit 0\n" });
    // Even committed on top, and with the branch moved: only the base commit counts.
    git(dir, "commit", "-q", "-am", "disarm verify");
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("failed with exit 3");
  });

  it("ignores refs/replace objects that would swap the base's verify.sh", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": FAILING });
    const blob = git(dir, "rev-parse", `${sha}:scripts/verify.sh`);
    writeFiles(dir, { "harmless.sh": "exit 0\n" });
    const fake = git(dir, "hash-object", "-w", "harmless.sh");
    git(dir, "replace", blob, fake);
    expect(git(dir, "show", `${sha}:scripts/verify.sh`)).toBe("exit 0");
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("failed with exit 3");
  });

  it("is silent when the base has no scripts/verify.sh, even if the builder adds one", async () => {
    const { dir, sha } = repo({});
    writeFiles(dir, { "scripts/verify.sh": FAILING });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(answer.stdout).toBe("");
  });

  it("blocks when FORGE_BASE_REF is unset (fail closed)", async () => {
    const { dir } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({ stdin: hookInput(dir), env: env({}) });
    expect(parseBlock(answer.stdout).reason).toContain("FORGE_BASE_REF is not set");
  });

  it("blocks when FORGE_BASE_REF is a branch name (the builder could move it)", async () => {
    const { dir } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: "main" }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("not a full commit id");
  });

  it("blocks when FORGE_BASE_REF is not a commit in the repo", async () => {
    const { dir } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: "0".repeat(40) }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("is not a commit");
  });

  it("blocks on a timeout, saying so, and kills the script", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": "echo started\nsleep 5\necho finished\n" });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha, FORGE_VERIFY_TIMEOUT: "1" }),
    });
    const { reason } = parseBlock(answer.stdout);
    expect(reason).toContain("timed out after 1 s");
    expect(reason).toContain("started");
    expect(reason).not.toContain("finished");
  });

  it("blocks on an invalid FORGE_VERIFY_TIMEOUT", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha, FORGE_VERIFY_TIMEOUT: "soon" }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("FORGE_VERIFY_TIMEOUT");
  });

  it.each([
    ["not JSON", "{nope"],
    ["empty input", ""],
    ["a JSON array", "[]"],
    ["JSON null", "null"],
  ])("blocks on bad stdin: %s", async (_name, stdin) => {
    const { sha } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({ stdin, env: env({ FORGE_BASE_REF: sha }) });
    parseBlock(answer.stdout);
  });

  it("blocks when there is no absolute project dir", async () => {
    const { sha } = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({
      stdin: hookInput("relative/dir"),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("project directory");
  });

  it("prefers CLAUDE_PROJECT_DIR over the input cwd", async () => {
    const failing = repo({ "scripts/verify.sh": FAILING });
    const passing = repo({ "scripts/verify.sh": PASSING });
    const answer = await stopVerifyHook({
      stdin: hookInput(passing.dir),
      env: env({ FORGE_BASE_REF: failing.sha, CLAUDE_PROJECT_DIR: failing.dir }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("failed with exit 3");
  });

  it("runs verify.sh with the repository root as cwd", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": "test -f README.md && test -d .git\n" });
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(answer.stdout).toBe("");
  });
});

describe("runVerifyFromBase", () => {
  it("reports present, exit code, output and the resolved base sha", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": FAILING });
    const result = await runVerifyFromBase({ repoDir: dir, baseRef: sha, timeoutMs: 30_000 });
    expect(result).toMatchObject({
      present: true,
      ok: false,
      exitCode: 3,
      timedOut: false,
      baseSha: sha,
    });
    expect(result.output).toContain("test: 2 failed");
  });

  it("reports a passing script as ok", async () => {
    const { dir, sha } = repo({ "scripts/verify.sh": PASSING });
    const result = await runVerifyFromBase({ repoDir: dir, baseRef: sha, timeoutMs: 30_000 });
    expect(result).toMatchObject({ present: true, ok: true, exitCode: 0, timedOut: false });
    expect(result.output).toBe("all good\n");
  });

  it("reports an absent script as present: false", async () => {
    const { dir, sha } = repo({});
    const result = await runVerifyFromBase({ repoDir: dir, baseRef: sha, timeoutMs: 30_000 });
    expect(result).toEqual({
      present: false,
      ok: true,
      exitCode: null,
      timedOut: false,
      output: "",
      baseSha: sha,
    });
  });

  it("kills the whole process group on timeout (a background child dies too)", async () => {
    const { dir, sha } = repo({
      "scripts/verify.sh": "(sleep 5; touch late-marker) &\nsleep 5\n",
    });
    const result = await runVerifyFromBase({ repoDir: dir, baseRef: sha, timeoutMs: 1_000 });
    expect(result).toMatchObject({ present: true, ok: false, timedOut: true, exitCode: null });
    // Wait longer than the background child would have needed, then look for its marker.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(git(dir, "status", "--porcelain")).not.toContain("late-marker");
  });

  it("refuses a base verify.sh that is a symlink (fail closed, not silently skipped)", async () => {
    const { dir } = repo({ "ci/verify.sh": PASSING });
    // A commit whose scripts/verify.sh is a symlink blob (mode 120000) to ci/verify.sh.
    const link = gitInput(dir, "../ci/verify.sh", "hash-object", "-w", "--stdin");
    git(dir, "update-index", "--add", "--cacheinfo", `120000,${link},scripts/verify.sh`);
    git(dir, "commit", "-q", "-m", "symlinked verify");
    const sha = git(dir, "rev-parse", "HEAD");
    await expect(
      runVerifyFromBase({ repoDir: dir, baseRef: sha, timeoutMs: 30_000 }),
    ).rejects.toThrow(VerifyBaseError);
    const answer = await stopVerifyHook({
      stdin: hookInput(dir),
      env: env({ FORGE_BASE_REF: sha }),
    });
    expect(parseBlock(answer.stdout).reason).toContain("not a regular file");
  });
});

describe("stop-verify pure pieces", () => {
  it.each([
    [undefined, 600],
    ["", 600],
    ["1", 1],
    ["2.5", 2.5],
    ["0", null],
    ["-1", null],
    ["10s", null],
    ["Infinity", null],
  ])("parseTimeoutSeconds(%j) → %j", (value, expected) => {
    expect(parseTimeoutSeconds(value)).toBe(expected);
  });

  it("keeps only the last 40 lines and marks the cut", () => {
    const output = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const tail = outputTail(output);
    expect(tail).toContain("line 99");
    expect(tail).toContain("line 60");
    expect(tail).not.toContain("line 59\n");
    expect(tail).toContain("earlier output omitted");
  });

  it("limits the size of a single huge line and strips terminal escapes", () => {
    const tail = outputTail(`\u001b[31mred\u001b[0m ${"x".repeat(10_000)}`);
    expect(tail.length).toBeLessThan(4_100);
    expect(tail).not.toContain("\u001b");
  });

  it("names a signal death and a start error", () => {
    const base = {
      present: true,
      ok: false,
      exitCode: null,
      timedOut: false,
      output: "",
      baseSha: "abc",
    };
    expect(failureReason({ ...base, signal: "SIGSEGV" }, 1000)).toContain(
      "killed by signal SIGSEGV",
    );
    expect(failureReason({ ...base, startError: "spawn bash ENOENT" }, 1000)).toContain(
      "could not be started",
    );
  });
});
