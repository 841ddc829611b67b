// `git -c key=value`, `git --config-env=key=VAR` and `git config …` against the key policy.
import { type CommandContext, certain, type Finding, shown, uncertain } from "./command-context.js";
import { classifyConfigKey } from "./git-config-policy.js";
import { literalOf, type Word, type WordPart } from "./shell-words.js";

const ALIAS_REASON = "git aliases are not allowed (an alias can run git push)";
const INCLUDE_REASON = "git config includes are not allowed (an included file can define aliases)";

async function checkKeyValue(
  key: string,
  value: Word | undefined,
  what: string,
  ctx: CommandContext,
): Promise<Finding | null> {
  const verdict = classifyConfigKey(key);
  switch (verdict.kind) {
    case "alias":
      return certain(ALIAS_REASON);
    case "include":
      return certain(INCLUDE_REASON);
    case "safe":
      return null;
    case "unsafe":
      return uncertain(`${what} ${shown(key)} is not on the guard's list of safe git settings`);
    case "command": {
      if (!value) return null;
      const lit = literalOf(value);
      if (lit === null)
        return uncertain(`${what} ${shown(key)} is set to a run-time value, and git runs it`);
      const reason = await ctx.analyseScript(lit);
      return reason ? certain(reason) : null;
    }
  }
}

/** `key=value` as one word (`git -c`); `keyOnly` when the value comes from elsewhere. */
export async function checkConfigAssignment(
  word: Word | undefined,
  ctx: CommandContext,
  what: string,
  keyOnly = false,
): Promise<Finding | null> {
  if (!word) return null;
  const eq = word.parts.findIndex((p) => p.kind === "char" && p.ch === "=");
  const keyParts = eq >= 0 ? word.parts.slice(0, eq) : word.parts;
  const key = literalOf({ parts: keyParts, source: word.source });
  if (key === null) return uncertain(`the key given to ${what} is computed at run time`);
  const valueParts: WordPart[] = eq >= 0 ? word.parts.slice(eq + 1) : [];
  const value = keyOnly ? undefined : { parts: valueParts, source: word.source };
  if (keyOnly && classifyConfigKey(key).kind === "command") {
    return uncertain(`${what} ${shown(key)} takes its value from the environment, and git runs it`);
  }
  return checkKeyValue(key, value, what, ctx);
}

const SUBCOMMANDS = new Set([
  "get",
  "set",
  "unset",
  "list",
  "edit",
  "rename-section",
  "remove-section",
  "get-color",
  "get-colorbool",
]);
const VALUED_OPTIONS = new Set([
  "--file",
  "-f",
  "--blob",
  "--type",
  "--default",
  "--comment",
  "--value",
]);
const WRITE_OPTIONS = new Set(["--add", "--replace-all"]);
const READ_OPTIONS =
  /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|--name-only|--get-color|--get-colorbool)$/;

export async function analyseGitConfig(
  args: readonly Word[],
  ctx: CommandContext,
): Promise<Finding | null> {
  const positional: Word[] = [];
  let write = false;
  let read = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as Word;
    const lit = literalOf(w);
    if (lit === null || !lit.startsWith("-")) positional.push(w);
    else if (VALUED_OPTIONS.has(lit)) i++;
    else if (WRITE_OPTIONS.has(lit)) write = true;
    else if (READ_OPTIONS.test(lit)) read = true;
  }
  let sub: string | null = null;
  const first = positional[0] ? literalOf(positional[0]) : null;
  if (first !== null && SUBCOMMANDS.has(first)) {
    sub = first;
    positional.shift();
  }
  const [keyWord, valueWord] = positional;
  if (!keyWord) return null;
  const key = literalOf(keyWord);
  if (key === null) return uncertain("the key given to git config is computed at run time");
  // sections named in rename-section / remove-section count as keys too
  const keys = sub === "rename-section" ? positional.map((p) => literalOf(p) ?? "") : [key];
  for (const k of keys) {
    const kind = classifyConfigKey(k).kind;
    if (kind === "alias") return certain(ALIAS_REASON);
    if (kind === "include") return certain(INCLUDE_REASON);
  }
  const reading =
    read || sub === "get" || sub === "list" || sub === "get-color" || sub === "get-colorbool";
  const writing = write || sub === "set" || (sub === null && valueWord !== undefined && !reading);
  if (!writing) return null;
  return checkKeyValue(key, valueWord, "git config", ctx);
}
