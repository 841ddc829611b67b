// Toolchains in the box: for every command the project's `setup:` and `validate:` start, what it
// resolves to on the host and inside the box. A box sees the system's directories and the
// toolchains the deployment names (FORGE_BOX_PATHS), not the host's homes: a `python3` from
// pyenv, a `node` from nvm, `cargo` from rustup or `go` under ~/go is another program in the box,
// or none — and a run would use that one without a word. The proof says so, with both paths.
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { type BoxContext, run } from "./prove-harness.js";
import type { ProveCheck } from "./prove-types.js";

/** Words that start a command but are the shell's own, never a program on the PATH. */
const SHELL_WORDS = new Set([
  "cd",
  "export",
  "set",
  "unset",
  "echo",
  "printf",
  "test",
  "[",
  "true",
  "false",
  "exit",
  "source",
  ".",
  "exec",
  "if",
  "then",
  "else",
  "fi",
  "for",
  "do",
  "done",
  "while",
  "case",
  "esac",
  "!",
  "{",
  "}",
  "command",
  "eval",
  "read",
  "shift",
  "umask",
]);

/** A program name or absolute path this check may put into a shell line as it is. */
const SAFE_NAME = /^(?:\/[A-Za-z0-9._+-]+)+$|^[A-Za-z0-9._+-]+$/;

/**
 * The programs the command lines start: the first word of each simple command (after `&&`,
 * `||`, `;`, `|`, a newline or a parenthesis), without variable assignments. A path relative to
 * the workspace (`.venv/bin/python`, `./gradlew`) comes from the project or its setup, not the
 * host: it is not compared. Names that are not plain words are left out, never guessed at.
 */
export function commandsOf(lines: readonly string[]): string[] {
  const found = new Set<string>();
  for (const line of lines) {
    for (const part of line.split(/&&|\|\||[;|\n()]/)) {
      const words = part.trim().split(/\s+/).filter(Boolean);
      const word = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      if (!word || SHELL_WORDS.has(word) || !SAFE_NAME.test(word)) continue;
      found.add(word);
    }
  }
  return [...found];
}

/** Where `command` resolves on the host with this PATH, followed to the real file; or null. */
export function resolveOnHost(command: string, path: string): string | null {
  try {
    const found = execFileSync("/bin/sh", ["-c", 'command -v -- "$1"', "sh", command], {
      env: { PATH: path },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    if (!found.startsWith("/")) return null; // a shell builtin or alias
    return realpathSync(found);
  } catch {
    return null;
  }
}

export async function toolchainCheck(
  ctx: BoxContext,
  command: string,
  hostPath: string,
): Promise<ProveCheck> {
  const name = `toolchain: ${command}`;
  const host = resolveOnHost(command, hostPath);
  // SAFE_NAME: the command is a plain word or absolute path, so it can stand in the line.
  const r = await run(ctx, `p=$(command -v -- ${command}) && readlink -f -- "$p"`);
  const inBox = r.code === 0 ? r.stdout.trim() || null : null;
  const fix =
    "show the host's toolchain in every box with FORGE_BOX_PATHS=<its directory> (e.g. the " +
    "pyenv, nvm or rustup root), or run forgechain with a PATH that finds the system's own";
  if (!inBox) {
    return {
      name,
      ok: false,
      detail: `${command} is not found in the box${host ? ` (on the host: ${host})` : ""}`,
      fix: host
        ? fix
        : `install ${command} on the host where the box can see it (/usr, /opt via FORGE_BOX_PATHS)`,
    };
  }
  if (host && host !== inBox) {
    return {
      name,
      ok: false,
      detail: `${command} is another program in the box: host ${host}, box ${inBox}`,
      fix,
    };
  }
  return {
    name,
    ok: true,
    detail: host ? `${inBox}, as on the host` : `${inBox} (not on the host's PATH)`,
    fix: "",
  };
}
