// Which git configuration keys an agent may set (`git -c key=value`, `git config key value`).
// Many keys make git run a command (core.pager, core.sshCommand, filter.*.clean,
// diff.*.textconv, credential.helper, core.hooksPath, …) and `alias.*` can turn any word into
// `push`, so this is an allowlist: safe keys pass, keys whose value git runs as a shell command
// are analysed as commands, everything else is refused.

const SAFE_KEYS: readonly RegExp[] = [
  /^user\.(name|email)$/,
  /^author\.(name|email)$/,
  /^committer\.(name|email)$/,
  /^color\./,
  /^core\.(quotepath|autocrlf|safecrlf|eol|filemode|abbrev|whitespace|ignorecase|precomposeunicode|longpaths|symlinks|commentchar|commentstring|bigfilethreshold|compression)$/,
  /^advice\./,
  /^init\.defaultbranch$/,
  /^(commit|tag)\.gpgsign$/,
  /^log\./,
  /^diff\.(noprefix|mnemonicprefix|renames|renamelimit|algorithm|colormoved|statgraphwidth|context|interhunkcontext|relative|indentheuristic|ignoresubmodules|wserrorhighlight|dirstat|submodule)$/,
  /^merge\.(conflictstyle|ff|log|renames|stat|verbosity|renamelimit)$/,
  /^pull\.(rebase|ff)$/,
  /^rebase\.(autosquash|autostash|stat|updaterefs|abbreviatecommands|missingcommitscheck)$/,
  /^status\./,
  /^safe\.directory$/,
  /^i18n\./,
  /^gc\.auto(detach|packlimit)?$/,
  /^maintenance\.auto$/,
  /^fetch\.(prune|prunetags|parallel|writecommitgraph|recursesubmodules)$/,
  /^column\./,
  /^branch\.(autosetupmerge|autosetuprebase|sort)$/,
  /^branch\.[^.]+\.(remote|merge|rebase|description)$/,
  /^remote\.[^.]+\.(url|fetch|pushurl|tagopt|prune)$/,
  /^push\./, // pushing is refused anyway
  /^grep\.(linenumber|patterntype|extendedregexp|column|fullname|fallbacktonoindex)$/,
  /^blame\./,
  /^apply\.whitespace$/,
  /^checkout\.(defaultremote|workers)$/,
  /^submodule\.recurse$/,
  /^protocol\.version$/,
];

/** Keys whose value git hands to the shell as a command line. */
const COMMAND_KEYS: readonly RegExp[] = [
  /^core\.pager$/,
  /^pager\.[^.]+$/,
  /^core\.editor$/,
  /^sequence\.editor$/,
  /^core\.sshcommand$/,
];

export type KeyVerdict =
  | { readonly kind: "safe" }
  | { readonly kind: "command" }
  | { readonly kind: "alias" }
  | { readonly kind: "include" }
  | { readonly kind: "unsafe" };

/** `key` as git compares it: section and name are case-insensitive. */
export function classifyConfigKey(key: string): KeyVerdict {
  const k = key.toLowerCase();
  if (/^alias(\.|$)/.test(k)) return { kind: "alias" };
  if (/^include(if)?(\.|$)/.test(k)) return { kind: "include" };
  if (COMMAND_KEYS.some((re) => re.test(k))) return { kind: "command" };
  if (SAFE_KEYS.some((re) => re.test(k))) return { kind: "safe" };
  return { kind: "unsafe" };
}
