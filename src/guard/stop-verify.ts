import { isAbsolute } from "node:path";
import { VERIFY_PATH, VerifyBaseError } from "./stop-verify-git.js";
import { runVerifyFromBase, type VerifyFromBaseResult } from "./stop-verify-run.js";

export type { BaseScript } from "./stop-verify-git.js";
export { isFullObjectId, readVerifyScriptFromBase, VerifyBaseError } from "./stop-verify-git.js";
export type { VerifyFromBaseResult, VerifyRun } from "./stop-verify-run.js";
export { runVerifyFromBase, runVerifyScript } from "./stop-verify-run.js";

/**
 * The builder's Claude Code Stop hook (R2.6).
 *
 * Protocol (FACTS.md): stdout `{"decision":"block","reason":"…"}` with exit 0 keeps the agent
 * working and shows it the reason; silence with exit 0 lets it stop. Every "cannot tell" case
 * (bad input, no base, unreadable base, bad timeout) blocks — fail closed. We always answer
 * through the JSON channel with exit 0 (never exit 2), so there is exactly one way we block and
 * the reason reaches the model intact.
 *
 * `stop_hook_active: true` means the agent is already continuing because of a block: we let it
 * stop then, or it would loop (the CLI gives up after 8 blocks anyway). That is safe because the
 * runner runs verify again after the agent exits and FAILs the step — the hook only gives the
 * builder one early chance to fix things.
 */

export const DEFAULT_VERIFY_TIMEOUT_S = 600;

/** How many trailing lines of verify output go into the block reason, and at most how much. */
const REASON_LINES = 40;
const REASON_MAX_CHARS = 4_000;
const MAX_STDIN_CHARS = 1024 * 1024;

export type StopHookAnswer = { exitCode: 0; stdout: string };

const allow: StopHookAnswer = { exitCode: 0, stdout: "" };

export function blockAnswer(reason: string): StopHookAnswer {
  return { exitCode: 0, stdout: `${JSON.stringify({ decision: "block", reason })}\n` };
}

/** Drop ANSI escape sequences and control characters (except newline and tab). */
function sanitize(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal escapes is the point
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
  );
}

/** The last REASON_LINES lines of `output`, at most REASON_MAX_CHARS, marked when cut. */
export function outputTail(output: string): string {
  const lines = sanitize(output).replace(/\s+$/, "").split("\n");
  let tail = lines.slice(-REASON_LINES).join("\n");
  let cut = lines.length > REASON_LINES;
  if (tail.length > REASON_MAX_CHARS) {
    tail = tail.slice(tail.length - REASON_MAX_CHARS);
    cut = true;
  }
  if (tail === "") return "(no output)";
  return cut ? `[… earlier output omitted]\n${tail}` : tail;
}

/** The block reason for a failed run (exported for the runner's report). */
export function failureReason(result: VerifyFromBaseResult, timeoutMs: number): string {
  const what = `${VERIFY_PATH} (from base ${result.baseSha})`;
  let how: string;
  if (result.timedOut) how = `timed out after ${timeoutMs / 1000} s and was killed`;
  else if (result.startError !== undefined) how = `could not be started: ${result.startError}`;
  else if (result.signal !== undefined) how = `was killed by signal ${result.signal}`;
  else how = `failed with exit ${result.exitCode}`;
  return (
    `${what} ${how}: ${outputTail(result.output)}\n\n` +
    "Fix the code until it passes. The copy from the base commit is what runs, so editing " +
    `${VERIFY_PATH} has no effect; it runs as a temp copy with the repository root as cwd.`
  );
}

/** Parse FORGE_VERIFY_TIMEOUT (seconds); undefined → default; anything invalid → null. */
export function parseTimeoutSeconds(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return DEFAULT_VERIFY_TIMEOUT_S;
  if (!/^\d+(\.\d+)?$/.test(value.trim())) return null;
  const seconds = Number(value);
  return seconds > 0 && Number.isFinite(seconds) ? seconds : null;
}

/** Handle one Stop hook call. Never throws: any exception becomes a block. */
export async function stopVerifyHook(input: {
  stdin: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}): Promise<StopHookAnswer> {
  try {
    return await decide(input);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return blockAnswer(`forge stop-verify failed (${message}); blocking until it can verify.`);
  }
}

async function decide(input: {
  stdin: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}): Promise<StopHookAnswer> {
  const { stdin, env } = input;
  if (stdin.length > MAX_STDIN_CHARS) {
    return blockAnswer("forge stop-verify: hook input is larger than 1 MiB; blocking.");
  }
  let hook: unknown;
  try {
    hook = JSON.parse(stdin);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return blockAnswer(`forge stop-verify: hook input is not valid JSON (${detail}); blocking.`);
  }
  if (typeof hook !== "object" || hook === null || Array.isArray(hook)) {
    return blockAnswer("forge stop-verify: hook input is not a JSON object; blocking.");
  }
  const fields = hook as Record<string, unknown>;
  // Only a real `true` ends the loop; anything else ("true", 1) runs verify again.
  if (fields.stop_hook_active === true) return allow;

  const projectDir = env.CLAUDE_PROJECT_DIR || fields.cwd;
  if (typeof projectDir !== "string" || projectDir === "" || !isAbsolute(projectDir)) {
    return blockAnswer(
      "forge stop-verify: no absolute project directory (CLAUDE_PROJECT_DIR or the hook input's cwd); blocking.",
    );
  }
  const baseRef = env.FORGE_BASE_REF?.trim();
  if (!baseRef) {
    return blockAnswer(
      `forge stop-verify: FORGE_BASE_REF is not set, so ${VERIFY_PATH} cannot be taken from the base commit; ` +
        "blocking (fail closed). The runner must set it to the base commit id.",
    );
  }
  const seconds = parseTimeoutSeconds(env.FORGE_VERIFY_TIMEOUT);
  if (seconds === null) {
    return blockAnswer(
      `forge stop-verify: FORGE_VERIFY_TIMEOUT=${JSON.stringify(env.FORGE_VERIFY_TIMEOUT)} is not a positive number of seconds; blocking.`,
    );
  }
  const timeoutMs = Math.round(seconds * 1000);

  let result: VerifyFromBaseResult;
  try {
    result = await runVerifyFromBase({
      repoDir: projectDir,
      baseRef,
      timeoutMs,
      env,
      signal: input.signal,
    });
  } catch (error) {
    if (error instanceof VerifyBaseError) {
      return blockAnswer(`forge stop-verify: ${error.message}; blocking (fail closed).`);
    }
    throw error;
  }
  if (!result.present || result.ok) return allow;
  return blockAnswer(failureReason(result, timeoutMs));
}
