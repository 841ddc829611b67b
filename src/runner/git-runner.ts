import { execa } from "execa";
import type { GitRunner } from "../policy/config-source.js";

/** The policy module's git port, bound to a directory; never runs repository hooks. */
export function gitRunnerIn(cwd: string): GitRunner {
  return async (args) => {
    const result = await execa("git", ["-c", "core.hooksPath=/dev/null", ...args], {
      cwd,
      reject: false,
      stripFinalNewline: false,
      env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
    });
    return {
      exitCode: result.exitCode ?? 1,
      stdout: String(result.stdout ?? ""),
      stderr: String(result.stderr ?? ""),
    };
  };
}
