import { contentDigest } from "./canonical-json.js";
import type { ResolvedConfig, ResolvedControl } from "./resolved-config.js";

/** One control the runner executes in the box, in order: root controls, then components'. */
export interface ControlToRun extends ResolvedControl {
  /** Unique id: the name for a root control, `<dir>:<name>` for a component's. */
  id: string;
}

export function controlsToRun(config: ResolvedConfig): ControlToRun[] {
  const root = Object.values(config.controls).map((c) => ({ ...c, id: c.name }));
  const own = Object.keys(config.components)
    .sort()
    .flatMap((dir) =>
      Object.values(config.components[dir]?.controls ?? {}).map((c) => ({
        ...c,
        id: `${dir}:${c.name}`,
      })),
    );
  return [...root, ...own];
}

/** Setup commands in order, each with the folder it runs in. */
export function setupToRun(config: ResolvedConfig): Array<{ command: string; cwd: string }> {
  const root = config.setup.value.map((command) => ({ command, cwd: "." }));
  const own = Object.keys(config.components)
    .sort()
    .flatMap((dir) =>
      (config.components[dir]?.setup?.value ?? []).map((command) => ({ command, cwd: dir })),
    );
  return [...root, ...own];
}

/**
 * R7.2: a box proof holds while the hash of `setup:`/`validate:` is unchanged. This is that
 * hash: only what runs and where (not origins, which change with no effect on the box).
 */
export function setupValidateDigest(config: ResolvedConfig): string {
  return contentDigest({
    setup: setupToRun(config),
    controls: controlsToRun(config).map(({ id, run, advisory, cwd }) => ({
      id,
      run,
      advisory,
      cwd,
    })),
  });
}

/** What the runner measured for one control. */
export interface ControlResult {
  id: string;
  /** The control's advisory flag as resolved (the profile may tighten it, never loosen). */
  advisory: boolean;
  /** Exit code; null when the process never started or was killed by a signal. */
  exitCode: number | null;
  /** Set when the command could not be started at all (ENOENT, EACCES, …). */
  spawnError?: string;
  signal?: string;
  timedOut?: boolean;
}

/**
 * A policy profile over controls: `advisory: false` makes an advisory control blocking.
 * `advisory: true` on a blocking control is an attempt to un-block it: ignored, reported.
 */
export interface ControlProfile {
  name?: string;
  controls?: Record<string, { advisory?: boolean }>;
}

export type ControlStatus = "passed" | "failed" | "not_started";

export interface EvaluatedControl {
  id: string;
  status: ControlStatus;
  /** Effective flag after the profile. */
  advisory: boolean;
  /** True when this result blocks the chain (and the merge). */
  blocking: boolean;
  /** ✅ passed, ❌ blocking failure, ⚠️ advisory failure (the PR body's warning mark). */
  mark: "✅" | "❌" | "⚠️";
  detail: string;
}

export interface ControlsEvaluation {
  /** False exactly when some result blocks. Advisory failures never make this false. */
  passed: boolean;
  /** Failures that block: non-advisory failures and any control that could not start. */
  blocking: EvaluatedControl[];
  /** Advisory failures: reported with ⚠️, never fail, block or trigger a repair. */
  warnings: EvaluatedControl[];
  /** Whether a repair round makes sense: only for blocking failures of a command that ran. */
  repair: boolean;
  controls: EvaluatedControl[];
  /** Profile entries that were ignored (an attempt to un-block a control). */
  notices: string[];
}

/** Exit codes a shell uses for "command not found" (127) and "found but not executable" (126). */
const NOT_STARTED_EXIT = new Set([126, 127]);

/**
 * R8.3, exactly: an advisory failure is a warning and nothing more; a profile may make a
 * non-blocking control blocking, never the reverse (the attempt is ignored and reported); a
 * control whose command could not even start is a failure whether advisory or not — a broken
 * control must not pass silently as "just a warning".
 */
export function evaluateControls(
  results: readonly ControlResult[],
  profile?: ControlProfile,
): ControlsEvaluation {
  const notices: string[] = [];
  const controls: EvaluatedControl[] = results.map((result) => {
    let advisory = result.advisory;
    const wanted = profile?.controls?.[result.id]?.advisory;
    if (wanted === false) advisory = false;
    else if (wanted === true && !result.advisory) {
      notices.push(
        `profile${profile?.name ? ` ${profile.name}` : ""}: "${result.id}" stays blocking — a profile can make a control blocking, never non-blocking`,
      );
    }
    const notStarted =
      result.spawnError !== undefined ||
      (result.exitCode !== null && NOT_STARTED_EXIT.has(result.exitCode)) ||
      (result.exitCode === null && result.signal === undefined && result.timedOut !== true);
    const failed = notStarted || result.exitCode !== 0;
    const status: ControlStatus = notStarted ? "not_started" : failed ? "failed" : "passed";
    const blocking = status === "not_started" || (status === "failed" && !advisory);
    const mark = status === "passed" ? "✅" : blocking ? "❌" : "⚠️";
    return { id: result.id, status, advisory, blocking, mark, detail: describe(result, status) };
  });
  const blocking = controls.filter((c) => c.blocking);
  const warnings = controls.filter((c) => !c.blocking && c.status !== "passed");
  return {
    passed: blocking.length === 0,
    blocking,
    warnings,
    repair: blocking.some((c) => c.status === "failed"),
    controls,
    notices,
  };
}

function describe(result: ControlResult, status: ControlStatus): string {
  if (status === "passed") return "passed";
  if (result.spawnError) return `could not start: ${result.spawnError}`;
  if (result.exitCode === 127) return "could not start: command not found (exit 127)";
  if (result.exitCode === 126) return "could not start: command not executable (exit 126)";
  if (result.timedOut) return "timed out";
  if (result.signal) return `killed by ${result.signal}`;
  if (result.exitCode === null) return "could not start: no exit status";
  return `failed with exit ${result.exitCode}`;
}

/** One line for the PR body / run output, e.g. "⚠️ security (advisory): failed with exit 1". */
export function formatControlLine(control: EvaluatedControl): string {
  return `${control.mark} ${control.id}${control.advisory ? " (advisory)" : ""}: ${control.detail}`;
}
