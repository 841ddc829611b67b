// `bash -c '…'` and friends: the `-c` string is a script and gets the full analysis. A shell
// started without `-c` and without a script file reads its commands from stdin
// (`echo 'git push' | sh`, `bash <<EOF`), which the guard cannot see: refused.
import { type CommandContext, certain, type Finding, uncertain } from "./command-context.js";
import { isStreamWord } from "./interpreter-rules.js";
import { literalOf, type Word } from "./shell-words.js";
import { UNSAFE_SHOPTS } from "./wrapper-specs.js";

/** Long options (bash) that take a value. */
const LONG_VALUED = new Set(["--rcfile", "--init-file"]);

export async function analyseShell(
  name: string,
  args: readonly Word[],
  ctx: CommandContext,
): Promise<Finding | null> {
  let commandMode = false;
  let stdinMode = false;
  let informational = false;
  let i = 0;
  for (; i < args.length; i++) {
    const lit = literalOf(args[i] as Word);
    if (lit === null && commandMode) {
      return uncertain(
        `the script given to ${name} -c is computed at run time, so the guard cannot check it`,
      );
    }
    if (lit === null && isStreamWord(args[i] as Word)) {
      return uncertain(`${name} would run commands from a stream the guard cannot see`);
    }
    if (lit === null) return uncertain(`the options of ${name} are computed at run time`);
    if (lit === "--" || lit === "-") {
      i++;
      break;
    }
    if (lit.startsWith("--")) {
      if (lit === "--version" || lit === "--help") informational = true;
      if (LONG_VALUED.has(lit)) i++;
      continue;
    }
    if (!lit.startsWith("-") && !lit.startsWith("+")) break;
    for (const ch of lit.slice(1)) {
      if (ch === "c") commandMode = true;
      else if (ch === "s") stdinMode = true;
      else if (ch === "o" || ch === "O") {
        i++;
        const value = args[i] ? literalOf(args[i] as Word) : "";
        if (value === null)
          return uncertain(`${name} is given a shell option computed at run time`);
        if (ch === "O" && lit.startsWith("-") && UNSAFE_SHOPTS.has(value)) {
          return certain(`${name} -O ${value} is not allowed (it changes what globs match)`);
        }
      }
    }
  }
  const rest = args.slice(i);
  if (commandMode) {
    const script = rest[0];
    if (!script) return null; // bash: "-c: option requires an argument"
    const lit = literalOf(script);
    if (lit === null) {
      return uncertain(
        `the script given to ${name} -c is computed at run time, so the guard cannot check it`,
      );
    }
    const reason = await ctx.analyseScript(lit);
    return reason ? certain(reason) : null;
  }
  if (informational) return null;
  if (rest.length === 0 || stdinMode) {
    return uncertain(`${name} would read its commands from stdin, which the guard cannot check`);
  }
  if (rest[0] && isStreamWord(rest[0])) {
    return uncertain(`${name} would run commands from a stream the guard cannot see`);
  }
  return null; // runs a script file: the box, not the guard, bounds what it does
}
