// git in any form: global options are skipped exactly (`git -C . push`, `git -c k=v push`,
// `git --git-dir=x push`), the subcommand must be a literal on the guard's list of git
// commands (anything else may be an alias or a `git-<name>` program on PATH), and subcommands
// that run other commands (`submodule foreach`, `rebase --exec`, `bisect run`, …) have those
// commands analysed too. R2.5 is the real barrier (the agent holds no push token); this is the
// second layer.
import {
  type CommandContext,
  certain,
  type Finding,
  type Mode,
  shown,
  uncertain,
} from "./command-context.js";
import { analyseGitConfig, checkConfigAssignment } from "./git-config-rules.js";
import { dynamicWord, literalOf, plainWord, textOf, type Word } from "./shell-words.js";

export const PUSH_REASON = "git push is not allowed (the runner pushes)";

/** Subcommands that send commits somewhere (also read by the builder.allow check). */
export const PUSHING = new Set([
  "push",
  "send-pack",
  "http-push",
  "send-email",
  "imap-send",
  "subtree",
  "svn",
  "p4",
  "cvsexportcommit",
]);

/** git commands the guard lets through (all built in, none of them pushes). */
export const KNOWN = new Set(
  (
    "add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr " +
    "check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick " +
    "clean clone column commit commit-graph commit-tree config count-objects describe diagnose " +
    "diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack " +
    "filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc " +
    "get-tar-commit-id grep hash-object help index-pack init interpret-trailers log ls-files " +
    "ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index " +
    "merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects " +
    "pack-redundant pack-refs patch-id prune prune-packed pull range-diff read-tree rebase " +
    "reflog remote repack replace replay request-pull rerere reset restore rev-list rev-parse " +
    "revert rm shortlog show show-branch show-index show-ref sparse-checkout stage stash " +
    "status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects " +
    "update-index update-ref update-server-info var verify-commit verify-pack verify-tag " +
    "version whatchanged worktree write-tree"
  ).split(" "),
);

/** Global options with a separate value word. */
const GLOBAL_VALUED = new Set(["-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"]);
const GLOBAL_FLAGS = new Set([
  "-p",
  "--paginate",
  "-P",
  "--no-pager",
  "--bare",
  "--no-replace-objects",
  "--no-lazy-fetch",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-advice",
  "--exec-path",
  "--html-path",
  "--man-path",
  "--info-path",
  "--version",
  "-v",
  "--help",
  "-h",
]);
const GLOBAL_ATTACHED = [
  "--git-dir=",
  "--work-tree=",
  "--namespace=",
  "--super-prefix=",
  "--list-cmds=",
  "--attr-source=",
];

/** Subcommands whose `-m`/`--message` value is prose: not scanned for secret names. */
const MESSAGE_COMMANDS = new Set(["commit", "tag", "merge", "stash", "notes"]);

const MERGE_STRATEGIES = new Set(["ort", "recursive", "resolve", "octopus", "ours", "subtree"]);

function markMessages(args: readonly Word[], exempt: Set<Word>): void {
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const lit = w ? literalOf(w) : null;
    if (!w || lit === null) continue;
    if (lit === "-m" || lit === "--message" || /^-[a-zA-Z]*m$/.test(lit)) {
      const v = args[i + 1];
      if (v) exempt.add(v);
      i++;
    } else if (lit.startsWith("--message=") || /^-[a-zA-Z]*m./.test(lit)) exempt.add(w);
  }
}

/** Values of `--name value`, `--name=value` and (if given) `-x value` / `-xvalue`. */
function optionValues(args: readonly Word[], long: readonly string[], short?: string): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as Word;
    const lit = literalOf(word);
    if (lit === null) {
      // `--exec="$CMD"`: the option is visible, its value is not
      const text = textOf(word);
      const hit =
        long.some((n) => text.startsWith(`--${n}=`)) || (short && text.startsWith(`-${short}`));
      if (hit) out.push(dynamicWord(text));
      continue;
    }
    for (const name of long) {
      if (lit === `--${name}`) {
        const v = args[i + 1];
        if (v) out.push(v);
      } else if (lit.startsWith(`--${name}=`)) out.push(plainWord(lit.slice(name.length + 3)));
    }
    if (short && lit === `-${short}`) {
      const v = args[i + 1];
      if (v) out.push(v);
    } else if (short && lit.startsWith(`-${short}`) && lit.length > 2 && !lit.startsWith("--")) {
      out.push(plainWord(lit.slice(2)));
    }
  }
  return out;
}

async function analyseScripts(
  values: readonly Word[],
  what: string,
  ctx: CommandContext,
): Promise<Finding | null> {
  for (const v of values) {
    const lit = literalOf(v);
    if (lit === null) return uncertain(`the command given to ${what} is computed at run time`);
    const reason = await ctx.analyseScript(lit);
    if (reason) return certain(reason);
  }
  return null;
}

async function analyseJoined(words: readonly Word[], what: string, ctx: CommandContext) {
  const lits = words.map(literalOf);
  if (lits.some((l) => l === null))
    return uncertain(`the command given to ${what} is computed at run time`);
  return analyseScripts([plainWord(lits.join(" "))], what, ctx);
}

/** Subcommands where an argument computed at run time could be an option that runs a command. */
const OPTION_RUNS_COMMAND = new Set(["rebase", "difftool", "filter-branch", "for-each-repo"]);

async function analyseSubcommand(sub: string, args: readonly Word[], ctx: CommandContext) {
  if (MESSAGE_COMMANDS.has(sub)) markMessages(args, ctx.exempt);
  if (OPTION_RUNS_COMMAND.has(sub) && args.some((w) => w.parts[0]?.kind === "dyn")) {
    return uncertain(`an argument of git ${sub} is computed at run time and could run a command`);
  }
  switch (sub) {
    case "config":
      return analyseGitConfig(args, ctx);
    case "submodule": {
      const at = args.findIndex((w) => literalOf(w) === "foreach");
      if (at < 0) return null;
      const rest = args
        .slice(at + 1)
        .filter((w) => !/^(--recursive|--quiet|-q)$/.test(literalOf(w) ?? ""));
      return analyseJoined(rest, "git submodule foreach", ctx);
    }
    case "rebase":
      return analyseScripts(optionValues(args, ["exec"], "x"), "git rebase --exec", ctx);
    case "difftool":
      return analyseScripts(optionValues(args, ["extcmd"], "x"), "git difftool --extcmd", ctx);
    case "grep":
      return analyseScripts(optionValues(args, ["open-files-in-pager"]), "git grep -O", ctx);
    case "filter-branch": {
      const names = ["env", "tree", "index", "parent", "msg", "commit", "tag-name"].map(
        (n) => `${n}-filter`,
      );
      return analyseScripts(optionValues(args, [...names, "setup"]), "git filter-branch", ctx);
    }
    case "bisect": {
      const at = args.findIndex((w) => literalOf(w) === "run");
      return at < 0 ? null : ctx.analyseArgv(args.slice(at + 1), "strict");
    }
    case "for-each-repo": {
      const rest = args.filter((w) => !/^--(config=.*|keep-going)$/.test(literalOf(w) ?? ""));
      return analyseGit(rest, ctx, "strict");
    }
    default:
      break;
  }
  if (["fetch", "pull", "clone", "ls-remote", "archive", "remote", "submodule"].includes(sub)) {
    const packs = optionValues(
      args,
      ["upload-pack", "receive-pack", "exec"],
      sub === "clone" ? "u" : undefined,
    );
    const found = await analyseScripts(packs, `git ${sub} --upload-pack`, ctx);
    if (found) return found;
  }
  if (["merge", "pull", "rebase"].includes(sub)) {
    for (const s of optionValues(args, ["strategy"], "s")) {
      const name = literalOf(s);
      if (name === null || !MERGE_STRATEGIES.has(name)) {
        return uncertain(
          `git ${sub} --strategy ${shown(name ?? "…")} would run a program the guard does not know`,
        );
      }
    }
  }
  return null;
}

/** Analyses `git <args>` (args exclude the program name). */
export async function analyseGit(
  args: readonly Word[],
  ctx: CommandContext,
  _mode: Mode,
): Promise<Finding | null> {
  // Global options first; a finding about them waits until we know the subcommand, so that
  // `git -c k=v push` is refused as a push.
  let optionFinding: Finding | null = null;
  let i = 0;
  while (i < args.length && !optionFinding) {
    const w = args[i] as Word;
    const lit = literalOf(w);
    if (lit === null) {
      return uncertain("the git subcommand is computed at run time, so the guard cannot check it");
    }
    if (lit === "-c") {
      optionFinding = await checkConfigAssignment(args[i + 1], ctx, "git -c");
      i += 2;
    } else if (lit.startsWith("--config-env=") || lit === "--config-env") {
      const spec = lit === "--config-env" ? literalOf(args[i + 1] ?? plainWord("")) : lit.slice(13);
      const key = (spec ?? "").split("=")[0] ?? "";
      optionFinding = await checkConfigAssignment(
        plainWord(`${key}=`),
        ctx,
        "git --config-env",
        true,
      );
      i += lit === "--config-env" ? 2 : 1;
    } else if (lit.startsWith("--exec-path=")) {
      optionFinding = uncertain("git --exec-path=… would run git commands from another directory");
      i++;
    } else if (GLOBAL_VALUED.has(lit)) i += 2;
    else if (GLOBAL_FLAGS.has(lit) || GLOBAL_ATTACHED.some((p) => lit.startsWith(p))) i++;
    else if (lit.startsWith("-")) {
      optionFinding = uncertain(`git option ${shown(lit)} is not one the guard knows`);
      i++;
    } else break;
  }
  if (optionFinding) {
    // skip the rest of the options to see whether this is a push after all
    while (i < args.length && (literalOf(args[i] as Word) ?? "-").startsWith("-")) {
      i +=
        GLOBAL_VALUED.has(literalOf(args[i] as Word) ?? "") || literalOf(args[i] as Word) === "-c"
          ? 2
          : 1;
    }
    const next = args[i] ? literalOf(args[i] as Word) : null;
    if (next === "push") return certain(PUSH_REASON);
    return optionFinding;
  }
  const subWord = args[i];
  if (!subWord) return null;
  const sub = literalOf(subWord) ?? "";
  if (sub === "push") return certain(PUSH_REASON);
  if (PUSHING.has(sub))
    return certain(`git ${sub} is not allowed (it can push; the runner pushes)`);
  if (!KNOWN.has(sub)) {
    return uncertain(
      `git ${shown(sub)} is not a git command the guard knows (it could be an alias)`,
    );
  }
  return analyseSubcommand(sub, args.slice(i + 1), ctx);
}
