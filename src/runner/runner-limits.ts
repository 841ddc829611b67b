// The runner's time limits a deployment sets in the environment (README, Environment).
// A value that is not a number of seconds is refused before anything runs: a typo must not
// silently become "no limit" or "the default".
import { DEFAULT_IDLE_TIMEOUT_MS } from "./agent-process.js";

/** scripts/verify.sh's default limit, the same as the builder's Stop hook (stop-verify.ts). */
export const DEFAULT_VERIFY_TIMEOUT_MS = 600_000;

/** A limit that is not a number of seconds: the CLI makes it bad usage, the App a refused start. */
export class RunnerLimitError extends Error {
  override readonly name = "RunnerLimitError";
}

export interface RunnerLimits {
  /** FORGE_IDLE_TIMEOUT: an agent without progress this long is ended; 0 = never. */
  idleTimeoutMs: number;
  /** FORGE_VERIFY_TIMEOUT: how long scripts/verify.sh may take. */
  verifyTimeoutMs: number;
}

export function runnerLimits(env: Record<string, string | undefined>): RunnerLimits {
  return {
    idleTimeoutMs: seconds(env, "FORGE_IDLE_TIMEOUT", DEFAULT_IDLE_TIMEOUT_MS, true),
    verifyTimeoutMs: seconds(env, "FORGE_VERIFY_TIMEOUT", DEFAULT_VERIFY_TIMEOUT_MS, false),
  };
}

function seconds(
  env: Record<string, string | undefined>,
  name: string,
  fallbackMs: number,
  zeroAllowed: boolean,
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallbackMs;
  const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || (value === 0 && !zeroAllowed)) {
    throw new RunnerLimitError(
      `${name}=${JSON.stringify(raw)} is not ${zeroAllowed ? "a number of seconds (0 turns the limit off)" : "a positive number of seconds"}`,
    );
  }
  return Math.round(value * 1000);
}
