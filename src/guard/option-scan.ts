// Skips the options of a wrapper command (`env -i`, `timeout -k 5 10`, `xargs -n1`) to find
// the command it runs. Unknown options are a problem, not a guess: a value-taking option we
// do not know would shift every later word (fail closed).
import { literalOf, plainWord, type Word } from "./shell-words.js";

export interface OptionSpec {
  /** Short options without a value, e.g. "iv". */
  readonly flags?: string;
  /** Short options whose value is the rest of the word or the next word, e.g. "uC". */
  readonly valued?: string;
  /** Short options whose optional value can only be attached (`xargs -i{}`, `-l5`). */
  readonly attached?: string;
  /** Long options without a value (an attached `=value` is allowed and ignored). */
  readonly longFlags?: readonly string[];
  readonly longValued?: readonly string[];
  /** `-<digits>` is an option (`nice -5`). */
  readonly numeric?: boolean;
}

export interface OptionValue {
  readonly option: string;
  readonly value: Word | undefined;
}

export type OptionScan =
  | {
      readonly ok: true;
      readonly next: number;
      readonly values: readonly OptionValue[];
      readonly flags: ReadonlySet<string>;
    }
  | { readonly ok: false; readonly problem: string };

export function scanOptions(words: readonly Word[], start: number, spec: OptionSpec): OptionScan {
  const values: OptionValue[] = [];
  const flags = new Set<string>();
  let i = start;
  while (i < words.length) {
    const word = words[i];
    const lit = word ? literalOf(word) : null;
    if (lit === null)
      return { ok: false, problem: "a word in option position is computed at run time" };
    if (lit === "--") return { ok: true, next: i + 1, values, flags };
    if (!lit.startsWith("-") || lit === "-") break;
    if (lit.startsWith("--")) {
      const eq = lit.indexOf("=");
      const name = eq >= 0 ? lit.slice(2, eq) : lit.slice(2);
      if (spec.longValued?.includes(name)) {
        if (eq >= 0) values.push({ option: name, value: plainWord(lit.slice(eq + 1)) });
        else {
          values.push({ option: name, value: words[i + 1] });
          i++;
        }
      } else if (spec.longFlags?.includes(name)) flags.add(name);
      else return { ok: false, problem: `unknown option --${name}` };
      i++;
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(lit)) {
      flags.add(lit.slice(1));
      i++;
      continue;
    }
    let consumedNext = false;
    for (let j = 1; j < lit.length; j++) {
      const c = lit[j] ?? "";
      if (spec.valued?.includes(c)) {
        const rest = lit.slice(j + 1);
        if (rest.length > 0) values.push({ option: c, value: plainWord(rest) });
        else {
          values.push({ option: c, value: words[i + 1] });
          consumedNext = true;
        }
        break;
      }
      if (spec.attached?.includes(c)) {
        const rest = lit.slice(j + 1);
        values.push({ option: c, value: rest.length > 0 ? plainWord(rest) : undefined });
        break;
      }
      if (spec.flags?.includes(c)) {
        flags.add(c);
        continue;
      }
      return { ok: false, problem: `unknown option -${c}` };
    }
    i += consumedNext ? 2 : 1;
  }
  return { ok: true, next: i, values, flags };
}
