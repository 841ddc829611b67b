// What the guard knows about a Bash command line after parsing: a flat list of every simple
// command anywhere in it (pipelines, lists, subshells, `$(…)`, function and loop bodies all
// flattened: a command that may never run is still checked), plus every other word and
// heredoc body, so the secret-path scan sees all text bash could use as a file name.
import type { Word } from "./shell-words.js";

export interface Assignment {
  readonly name: string;
  /** null when the value is an array `(…)`: its words are listed in looseWords. */
  readonly value: Word | null;
}

export interface Redirect {
  /** `<`, `>`, `>>`, `&>`, `<&`, `>&`, `<>`, `>|`, `<<<`, `<<`, … */
  readonly op: string;
  readonly target: Word | null;
}

export interface SimpleCommand {
  readonly assignments: readonly Assignment[];
  /** argv after brace expansion; argv[0] is the command name. */
  readonly words: readonly Word[];
  readonly redirects: readonly Redirect[];
  /** True when the command's stdin is a heredoc or herestring (matters for `bash <<EOF`). */
  readonly stdinFromHeredoc: boolean;
}

export interface ShellScript {
  readonly commands: readonly SimpleCommand[];
  /** Words outside simple commands: `for` lists, `case` patterns, `[[ … ]]`, `${x:-word}`. */
  readonly looseWords: readonly Word[];
  /** Assignments outside simple commands (`X=1` alone, `export X=1` is a command). */
  readonly assignments: readonly Assignment[];
  readonly redirects: readonly Redirect[];
  /** Literal text of heredoc bodies (run-time parts removed). */
  readonly heredocs: readonly string[];
}

/** Thrown when the text is not something bash would run as we understand it: deny. */
export class ShellParseError extends Error {}
