// Small argv surgery shared by the providers. Strict parsers (clap for Codex) refuse a repeated
// value flag, and commander (Claude) keeps the LAST value of a repeated one, so a flag we own
// is removed — with its value, in every spelling — before ours is added.

/** Split at the first "--" terminator: options before it, positionals (the prompt) after it. */
export function splitAtTerminator(args: readonly string[]): { head: string[]; tail: string[] } {
  const i = args.indexOf("--");
  if (i < 0) return { head: [...args], tail: [] };
  return { head: args.slice(0, i), tail: args.slice(i) };
}

export interface FlagSpec {
  /** Long names, e.g. "--sandbox". */
  long: string[];
  /** Short names, e.g. "-s" (also matches "-sX" and "-s=X"). */
  short?: string[];
  /** Whether the flag takes a value (then the next argument is removed too). */
  takesValue: boolean;
  /** For repeatable key=value flags (`-c key=value`): remove only when the value matches. */
  valueMatches?: (value: string) => boolean;
}

/** Remove every occurrence of a flag (and its value) from `args`. Returns the removed spellings. */
export function removeFlag(
  args: readonly string[],
  spec: FlagSpec,
): { args: string[]; removed: string[] } {
  const out: string[] = [];
  const removed: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const hit = matchFlag(a, spec);
    if (hit === null) {
      out.push(a);
      continue;
    }
    let value: string | undefined = hit.inline;
    let consumed = 0;
    if (spec.takesValue && value === undefined && i + 1 < args.length) {
      value = args[i + 1];
      consumed = 1;
    }
    if (spec.valueMatches && (value === undefined || !spec.valueMatches(value))) {
      out.push(a);
      continue;
    }
    removed.push(consumed ? `${a} ${value}` : a);
    i += consumed;
  }
  return { args: out, removed };
}

function matchFlag(arg: string, spec: FlagSpec): { inline?: string } | null {
  for (const name of spec.long) {
    if (arg === name) return {};
    if (spec.takesValue && arg.startsWith(`${name}=`))
      return { inline: arg.slice(name.length + 1) };
  }
  for (const name of spec.short ?? []) {
    if (arg === name) return {};
    if (spec.takesValue && arg.startsWith(name) && arg.length > name.length) {
      const rest = arg.slice(name.length);
      return { inline: rest.startsWith("=") ? rest.slice(1) : rest };
    }
  }
  return null;
}

/** Remove several flags; the removed spellings are collected for the report. */
export function removeFlags(
  args: readonly string[],
  specs: readonly FlagSpec[],
): { args: string[]; removed: string[] } {
  let current = [...args];
  const removed: string[] = [];
  for (const spec of specs) {
    const r = removeFlag(current, spec);
    current = r.args;
    removed.push(...r.removed);
  }
  return { args: current, removed };
}
