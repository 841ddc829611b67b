// R4.2 rule 1: git push in any form, for every role. Each denied case names the part of the
// analysis it depends on; removing that part makes the case pass through (and this test fail).
import { describe, expect, it } from "vitest";
import { ROLES } from "../../src/roles/role-names.js";
import { bash } from "./guard-kit.js";

const PUSH = /git push is not allowed \(the runner pushes\)/;
const COMPUTED = /computed at run time/;

const denied: readonly [string, string, RegExp][] = [
  // [what it exercises, command, expected reason]
  ["plain", "git push", PUSH],
  ["absolute program path", "/usr/bin/git push origin main", PUSH],
  ["git -C", "git -C . push", PUSH],
  ["git --git-dir=", "git --git-dir=x push", PUSH],
  ["git --work-tree value", "git --work-tree /tmp push", PUSH],
  ["git -c", "git -c k=v push", PUSH],
  ["assignment prefix", "GIT_X=1 git push", PUSH],
  ["env -i", "env -i git push", PUSH],
  ["env -C dir", "env -C dir git push", PUSH],
  ["env NAME=value", "env A=1 B=2 git push", PUSH],
  ["env -S string", "env -S 'git push'", PUSH],
  ["command", "command git push", PUSH],
  ["builtin exec", "exec git push", PUSH],
  ["nohup", "nohup git push", PUSH],
  ["time keyword", "time git push", PUSH],
  ["time -p", "time -p git push", PUSH],
  ["nice -n", "nice -n 5 git push", PUSH],
  ["nice -N", "nice -10 git push", PUSH],
  ["timeout DURATION", "timeout 5 git push", PUSH],
  ["timeout -k", "timeout -k 1 5 git push", PUSH],
  ["sudo", "sudo git push", PUSH],
  ["sudo -u", "sudo -u root git push", PUSH],
  ["sudo -s string", "sudo -s 'git push'", PUSH],
  ["xargs", "xargs git push", PUSH],
  ["xargs -n", "echo x | xargs -n1 git push", PUSH],
  ["xargs stdin items as subcommand", "echo push | xargs git", COMPUTED],
  ["xargs -I", "echo push | xargs -I{} git {}", COMPUTED],
  ["stdbuf", "stdbuf -o0 git push", PUSH],
  ["setsid", "setsid git push", PUSH],
  ["coproc", "coproc git push", PUSH],
  ["flock FILE cmd", "flock /tmp/l git push", PUSH],
  ["flock FILE -c", "flock /tmp/l -c 'git push'", PUSH],
  ["bash -c", "bash -c 'git push'", PUSH],
  ["sh -c", "sh -c 'git push'", PUSH],
  ["zsh -c", "zsh -c 'git push'", PUSH],
  ["dash -c", "dash -c 'git push'", PUSH],
  ["bash -ec cluster", "bash -ec 'git push'", PUSH],
  ["busybox sh -c", "busybox sh -c 'git push'", PUSH],
  ["nested -c strings", `bash -c "sh -c 'git push'"`, PUSH],
  ["dynamic -c string", 'bash -c "$X"', COMPUTED],
  ["shell reading stdin", "echo 'git push' | sh", /read its commands from stdin/],
  ["shell with heredoc", "bash <<EOF\ngit push\nEOF", /read its commands from stdin/],
  ["eval", "eval 'git push'", PUSH],
  ["eval joins its words", "eval git push", PUSH],
  ["eval of a run-time value", 'eval "$CMD"', COMPUTED],
  ["trap action", "trap 'git push' EXIT", PUSH],
  ["alias value", "alias p='git push'", PUSH],
  ["watch", "watch git push", PUSH],
  ["su -c", "su -c 'git push'", PUSH],
  ["find -exec", "find . -exec git push \\;", PUSH],
  ["find -execdir +", "find . -execdir git push {} +", PUSH],
  ["command substitution", "echo $(git push)", PUSH],
  ["backticks", "echo `git push`", PUSH],
  ["assignment from substitution", "a=$(git push)", PUSH],
  ["process substitution", "cat <(git push)", PUSH],
  ["subshell", "(git push)", PUSH],
  ["group", "{ git push; }", PUSH],
  ["pipeline", "ls | git push", PUSH],
  ["and-list", "true && git push", PUSH],
  ["sequence", "true; git push", PUSH],
  ["or-list", "false || git push", PUSH],
  ["background", "git push &", PUSH],
  ["negation", "! git push", PUSH],
  ["if body", "if true; then git push; fi", PUSH],
  ["while body", "while true; do git push; done", PUSH],
  ["for body", "for x in a; do git push; done", PUSH],
  ["case body", "case x in *) git push;; esac", PUSH],
  ["function body", "f() { git push; }", PUSH],
  ["heredoc pipeline", "cat <<EOF | git push\nx\nEOF", PUSH],
  ["backslash in name", "g\\it push", PUSH],
  ["line continuation inside a word", "gi\\\nt push", PUSH],
  ["quoted words", `"git" 'push'`, PUSH],
  ["ANSI-C quoted", "git $'push'", PUSH],
  ["translated string", 'git $"push"', PUSH],
  ["word after a redirection", "git >out push", PUSH],
  ["redirection first", ">out git push", PUSH],
  ["brace expansion", "git pu{sh,ll}", PUSH],
  ["brace expansion into two words", "command {git,push}", PUSH],
  ["git-push program", "/usr/lib/git-core/git-push origin", PUSH],
  ["unknown wrapper (tail scan)", "uv run git push", PUSH],
  ["unknown wrapper, shell inside", "uv run bash -c 'git push'", PUSH],
  ["git send-pack", "git send-pack origin main", /git send-pack is not allowed/],
  ["git http-push", "git http-push x", /git http-push is not allowed/],
  ["git subtree push", "git subtree push --prefix=x origin main", /git subtree is not allowed/],
  ["git -c alias", "git -c alias.p=push p", /aliases are not allowed/],
  ["git --config-env alias", "git --config-env=alias.p=P p", /aliases are not allowed/],
  ["git config alias", "git config alias.p push", /aliases are not allowed/],
  [
    "git config --global alias",
    "git config --global alias.p '!git push'",
    /aliases are not allowed/,
  ],
  ["git config include", "git config include.path /tmp/x", /includes are not allowed/],
  ["git -c command key", "git -c core.pager='git push' log", PUSH],
  ["git -c unknown key", "git -c credential.helper=store status", /not on the guard's list/],
  ["git config command key", "git config core.pager 'git push'", PUSH],
  ["git config unknown key", "git config core.hooksPath .hooks", /not on the guard's list/],
  ["git unknown subcommand", "git p", /not a git command the guard knows/],
  ["git dynamic subcommand", "git $X", COMPUTED],
  ["git unknown option", "git --frobnicate push2", /not one the guard knows/],
  ["git --exec-path=", "git --exec-path=/tmp status", /exec-path/],
  ["git rebase --exec", "git rebase -x 'git push' HEAD~1", PUSH],
  ["git submodule foreach", "git submodule foreach git push", PUSH],
  ["git bisect run", "git bisect run git push", PUSH],
  ["git fetch --upload-pack", "git fetch --upload-pack='git push' .", PUSH],
  ["git merge custom strategy", "git merge -s evil main", /strategy/],
  ["pager variable", "GIT_PAGER='git push' git log", PUSH],
  ["exported pager", "export GIT_PAGER='git push'", PUSH],
  ["git config via environment", "GIT_CONFIG_COUNT=1 git log", /GIT_CONFIG_COUNT/],
  ["BASH_ENV", "env BASH_ENV=x bash -c ls", /BASH_ENV/],
  ["dynamic command name", "$CMD push", /command name \$CMD is computed at run time/],
  [
    "substituted command name",
    "$(echo git) push",
    /command name \$\(echo git\) is computed at run time/,
  ],
  ["dynamic program basename", "/usr/bin/$G push", COMPUTED],
  ["dynamic name under a wrapper", "env $CMD push", COMPUTED],
  ["parse failure", "echo 'unterminated", /could not parse the command/],
  ["compound with trailing words", "{ git; } > o push", /could not parse the command/],
  ["raw control character", "git status\u0001", /control characters/],
];

const allowed: readonly string[] = [
  "git status",
  "git diff HEAD~1",
  "git log --oneline | head -5",
  "git stash push",
  'git stash push -m "wip"',
  "git add -A && git commit -m 'feat: x' && git log -1",
  'git commit -am "fix"',
  "git -c user.name=x -c user.email=y commit -m z",
  "GIT_PAGER=cat git log",
  "git -c core.pager=cat log",
  "git checkout -b forge/1-x",
  "git config user.name x",
  "git config --get user.name",
  "npm test",
  "npm run build 2>&1 | tail -20",
  "cat README.md",
  "grep -r process.env src",
  'echo "a b"',
  'cat $(ls) | grep x && echo "a b"',
  "ls -la && pwd",
  'echo "$(date)"',
  "sh scripts/verify.sh",
  "bash --version",
  "command -v git",
  "find . -name '*.ts' -exec wc -l {} +",
  "xargs -n1 echo",
  "time npm test",
  "timeout 60 npm test",
  "env NODE_ENV=test npm test",
  "grep -n push src/a.ts",
  "echo pushing",
];

describe("git push in any form is denied", () => {
  it.each(denied)("%s: %s", async (_what, command, reason) => {
    const result = await bash(command);
    expect(result).toMatch(/^forge guard: /);
    expect(result).toMatch(reason);
  });
});

describe("ordinary commands get no decision", () => {
  it.each(allowed)("%s", async (command) => {
    expect(await bash(command)).toBeNull();
  });
});

describe("every role", () => {
  it.each(ROLES)("%s may not push", async (role) => {
    expect(await bash("git -C . push", { role })).toMatch(PUSH);
    expect(await bash("git status", { role })).toBeNull();
  });
});
