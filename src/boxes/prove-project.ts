// The project's own checks of `forge box prove`: a clean clone of main, its `setup:` commands
// and its `validate:` controls, each run in the box on that clone.
import { execFileSync } from "node:child_process";
import { tail } from "./box-exec.js";
import { hostGit } from "./enforcement-check.js";
import type { ValidateControl } from "./proof-facts.js";
import { type BoxContext, run } from "./prove-harness.js";
import type { ProveCheck } from "./prove-types.js";

/** Clones main (or the default branch) into the empty workspace: the runner clones, never the agent (R2.5). */
export function cloneMain(repo: string, workspace: string): ProveCheck {
  const branch = hasBranch(repo, "main") ? "main" : null;
  const args = [
    "-c",
    "core.hooksPath=/dev/null",
    "clone",
    "-q",
    "--no-hardlinks",
    ...(branch ? ["--branch", branch] : []),
    repo,
    workspace,
  ];
  execFileSync("git", args, { stdio: ["ignore", "pipe", "pipe"] });
  const sha = hostGit(workspace, ["rev-parse", "HEAD"]).trim();
  return {
    name: "clean clone of main",
    ok: true,
    detail: `${branch ?? "default branch (no main)"} at ${sha.slice(0, 12)}`,
    fix: "",
  };
}

export async function setupCheck(
  ctx: BoxContext,
  cmd: string,
  timeoutMs: number,
): Promise<ProveCheck> {
  const r = await run(ctx, cmd, {}, timeoutMs);
  const ok = r.code === 0;
  return {
    name: `setup: ${cmd}`,
    ok,
    detail: ok
      ? "exit 0"
      : `exit ${r.code ?? r.signal}${r.timedOut ? " (timeout)" : ""}: ${tail(r.stderr || r.stdout)}`,
    fix: ok
      ? ""
      : "fix the project's setup: commands (they run in the box, on a clean clone of main)",
  };
}

export async function validateCheck(
  ctx: BoxContext,
  name: string,
  control: ValidateControl,
  timeoutMs: number,
): Promise<ProveCheck> {
  const r = await run(ctx, control.run, {}, timeoutMs);
  // 126/127: the command could not even start — a failure, advisory or not (R8.3).
  const couldNotStart = r.code === 126 || r.code === 127 || r.spawnError !== undefined;
  const passed = r.code === 0;
  const ok = passed || (control.advisory && !couldNotStart);
  const what = passed
    ? "passed"
    : couldNotStart
      ? "could not start"
      : `failed (exit ${r.code ?? r.signal})`;
  return {
    name: `validate: ${name}`,
    ok,
    detail: [
      `${what}${control.advisory ? " (advisory)" : ""}`,
      passed ? "" : tail(r.stderr || r.stdout, 300),
    ]
      .filter(Boolean)
      .join(": "),
    fix: ok ? "" : `make \`${control.run}\` pass on a clean clone of main inside the box`,
  };
}

function hasBranch(repo: string, branch: string): boolean {
  try {
    execFileSync("git", ["-C", repo, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false;
  }
}
