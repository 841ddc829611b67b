// Shared shapes of the command analysis.
import type { Word } from "./shell-words.js";

/**
 * A reason to refuse. `certain` findings (a real `git push`, an alias definition, a nested
 * script that was parsed and refused) count everywhere; uncertain ones (an unknown option, a
 * run-time value) count only where the guard knows the word is a command ("strict"), not when
 * it merely spots `git` among another program's arguments ("tail": `grep git notes.txt`).
 */
export interface Finding {
  readonly reason: string;
  readonly certain: boolean;
}

export type Mode = "strict" | "tail";

export interface CommandContext {
  /** Full guard analysis of a nested script (`bash -c`, `eval`, a pager value). */
  analyseScript(source: string): Promise<string | null>;
  /** Analysis of an argv that a wrapper or `find -exec` runs. */
  analyseArgv(words: readonly Word[], mode: Mode): Promise<Finding | null>;
  /** Words the secret scan skips (commit messages); filled in during analysis. */
  readonly exempt: Set<Word>;
}

export function certain(reason: string): Finding {
  return { reason, certain: true };
}

export function uncertain(reason: string): Finding {
  return { reason, certain: false };
}

/** A printable, bounded rendering of agent-controlled text for a deny reason. */
export function shown(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  // keep both ends: the start says what it is, the end (of a path) where it leads
  return clean.length > 60 ? `${clean.slice(0, 20)}...${clean.slice(-37)}` : clean;
}
